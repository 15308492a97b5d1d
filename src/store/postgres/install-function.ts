// Installing a function into a list's schema once: a schema made by an earlier version gets the
// functions it lacks at start, and a new version of a function gets a new name.

/** PL/pgSQL that runs `definition` (a CREATE FUNCTION) unless `schema` has a function named `name`. */
export function installFunction(schema: string, name: string, definition: string): string {
  return `IF NOT EXISTS (
    SELECT FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = '${schema}' AND p.proname = '${name}'
  ) THEN
    ${definition}
  END IF;`;
}
