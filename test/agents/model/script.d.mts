// Types for the tests that check what the scripted model says (script.mjs is plain JavaScript).
/** The slow answer to any ordinary prompt, six lines. */
export declare const ANSWER: string;
/** The MCP call `MCPCALL <tool> <json>` asks for, given the tool names the agent declared; null if none. */
export declare function mcpCallOf(text: string, tools: string[]): { name: string; input: Record<string, unknown> } | null;
