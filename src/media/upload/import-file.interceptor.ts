import { Injectable } from '@nestjs/common';
import { MAX_IMPORT_BYTES } from '../../common/contract-limits.js';
import { MultipartUploadInterceptor } from './multipart-upload.interceptor.js';

/**
 * A catalogue import's form: one `file` of at most 50 MB. Not counted in the images' upload
 * budget (a file fills it alone): imports are staff's, and their files go to the database.
 */
@Injectable()
export class ImportFileInterceptor extends MultipartUploadInterceptor {
  constructor() {
    super({
      field: 'file',
      maxFileBytes: MAX_IMPORT_BYTES,
      maxBodyBytes: MAX_IMPORT_BYTES + 64 * 1024,
      what: 'Import files',
    });
  }
}
