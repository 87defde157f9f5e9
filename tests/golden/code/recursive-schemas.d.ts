type Person = { id: string; name: string; employer?: { name: string; employees?: Person[] }; manager?: Person };
type ThreadedComment = { author: string; body: string } & { replies?: ThreadedComment[] };
type TreeNode = { name: string; children?: TreeNode[]; parent?: TreeNode; value?: number };
declare const api: {
  /** Fetch the whole category tree */
  getCategoryTree(args?: { depth?: number /* min 0, default 0 */ }): Promise<{ name: string; children?: TreeNode[]; parent?: TreeNode; value?: number }>;
  /** Replace the whole category tree */
  replaceCategoryTree(args: { name: string; children?: { name: string; children?: TreeNode[]; parent?: TreeNode; value?: number }[]; parent?: { name: string; children?: TreeNode[]; parent?: TreeNode; value?: number }; value?: number }): Promise<{ name: string; children?: TreeNode[]; parent?: TreeNode; value?: number }>;
  /** Post a comment with nested replies */
  postComment(args: { author: string; body: string; replies?: ({ author: string; body: string } & { replies?: ThreadedComment[] })[] }): Promise<{ result: { author: string; body: string } & { replies?: ThreadedComment[] } }>;
  /** Get a person with their employer (which lists its employees) */
  getPerson(args: { personId: string }): Promise<{ id: string; name: string; employer?: { name: string; employees?: Person[] }; manager?: Person }>;
};
