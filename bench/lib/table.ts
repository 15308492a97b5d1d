// A Markdown table, as every scenario's report writes one.

export type Column<T> = readonly [header: string, cell: (row: T) => string];

/** A Markdown table of `rows`, the first `textColumns` columns left-aligned and the numbers right-aligned. */
export function table<T>(rows: readonly T[], columns: readonly Column<T>[], textColumns: number): string {
  const align = columns.map((_, i) => (i < textColumns ? "---" : "---:"));
  const lines = [columns.map(([header]) => header), align, ...rows.map((row) => columns.map(([, cell]) => cell(row)))];
  return lines.map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}
