/** Limits the contract fixes and more than one module enforces or documents. */

/** The largest page a list answers (`limit`). */
export const MAX_PAGE_SIZE = 100;

/** Photo URLs per pet; uploaded images are appended to them, so this bounds images too. */
export const MAX_PHOTO_URLS = 20;

/** The largest image an upload may carry (5 MB). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/**
 * The largest upload body: the image plus room for the boundaries, part headers and a
 * 500-character description around it.
 */
export const MAX_UPLOAD_BODY_BYTES = MAX_IMAGE_BYTES + 64 * 1024;

/** The largest catalogue import file (50 MB), and the most rows it may hold. */
export const MAX_IMPORT_BYTES = 50 * 1024 * 1024;
export const MAX_IMPORT_ROWS = 100_000;
