// The pages a browser gets at a list's page for no list, built by scripts/build-missing-pages.ts from src/pages/missing/: run npm run build:page after changing them.

/** src/pages/missing/missing-list.html: no list has the name (404). */
export const NOT_FOUND_HTML = "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>No list here</title>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"color-scheme\" content=\"light dark\">\n</head>\n<body>\n<main>\n<h1>No list here</h1>\n<p>No list has this name. It may never have been created, or the link may be mistyped.</p>\n<p><a href=\"../../\">Go to your lists</a></p>\n</main>\n</body>\n</html>\n";

/** src/pages/missing/missing-list.html: the list was deleted (410). */
export const DELETED_HTML = "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>This list was deleted</title>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"color-scheme\" content=\"light dark\">\n</head>\n<body>\n<main>\n<h1>This list was deleted</h1>\n<p>This list was deleted, and its tasks with it.</p>\n<p><a href=\"../../\">Go to your lists</a></p>\n</main>\n</body>\n</html>\n";
