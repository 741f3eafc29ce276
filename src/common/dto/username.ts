/** Usernames: 3 to 32 of A-Z, a-z, 0-9, `_`, `.`, `-`; unique case-insensitively. */
export const USERNAME_PATTERN = /^[A-Za-z0-9_.-]{3,32}$/;
