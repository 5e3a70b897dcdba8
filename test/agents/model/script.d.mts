// Types for the tests that check what the scripted model says (script.mjs is plain JavaScript).
/** The slow answer to any ordinary prompt, six lines. */
export declare const ANSWER: string;
