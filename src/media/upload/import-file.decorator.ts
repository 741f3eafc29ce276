import { UseInterceptors } from '@nestjs/common';
import { ImportFileInterceptor } from './import-file.interceptor.js';

/**
 * Media's upload parsing for another module's route: a catalogue import's form, one `file`
 * of at most 50 MB, read with the image upload's limits and errors. The handler takes the
 * form with `@UploadedForm(pipe)`.
 */
export const ImportFileForm = () => UseInterceptors(ImportFileInterceptor);

export { UploadedForm, type UploadForm } from './upload-form.js';
