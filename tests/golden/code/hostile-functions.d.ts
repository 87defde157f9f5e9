declare const api: {
  /** A function named like the stub helper. */
  not_implemented(args: { type: string; "名前": string; "1st"?: number | null; Self?: boolean; "a-b"?: string[]; a_b?: number[][]; any?: unknown; either?: string | number; nested?: { deep?: string }; self?: number; userId?: "x" | "y" }): Promise<unknown>;
  /** Shadows the dispatcher's parser */
  parse(args?: {}): Promise<unknown>;
  /** The same Rust name once snake_cased */
  Parse(args?: {}): Promise<unknown>;
  /** Starts with a digit */
  _1st_tool(args?: { fn?: string }): Promise<unknown>;
  /** A keyword as a name */
  type(args?: { a?: string; b?: string }): Promise<unknown>;
  /** Extra keys allowed */
  free_form(args?: { [key: string]: string }): Promise<unknown>;
};
