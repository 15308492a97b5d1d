// A Markdown table, the one shape every section of the results uses.

/** A Markdown table whose first `textColumns` columns are left-aligned and the others, numbers, right-aligned. */
export function table(header: readonly string[], rows: readonly (readonly string[])[], textColumns: number): string {
  const align = header.map((_, i) => (i < textColumns ? "---" : "---:"));
  return [header, align, ...rows].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}
