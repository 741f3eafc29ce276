/** How long the link of a user's own email change works (contract section 8, "Accounts"). */
export const EMAIL_CHANGE_TTL_SECONDS = 24 * 3600;
