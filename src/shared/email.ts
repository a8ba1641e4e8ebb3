/** An address as the site compares it: trimmed, lower case (`Ada@Example.test` is `ada@example.test`). */
export const normalEmail = (value: string) => value.trim().toLowerCase();

/** One mailbox however it is written: any case, without a `+tag` (ada+1@ and ada+2@ are ada@). */
export const mailboxOf = (email: string) => normalEmail(email).replace(/\+[^@]*@/, '@');
