import { Injectable } from '@nestjs/common';
import { MAX_IMAGE_BYTES, MAX_UPLOAD_BODY_BYTES } from '../../common/contract-limits.js';
import { UploadBudget } from '../processing/upload-budget.js';
import { MultipartUploadInterceptor } from './multipart-upload.interceptor.js';

/** The image upload's form: at most one 5 MB `image`, its bytes counted in the upload budget. */
@Injectable()
export class ImageUploadInterceptor extends MultipartUploadInterceptor {
  constructor(budget: UploadBudget) {
    super(
      {
        field: 'image',
        maxFileBytes: MAX_IMAGE_BYTES,
        maxBodyBytes: MAX_UPLOAD_BODY_BYTES,
        what: 'Images',
      },
      budget,
    );
  }
}
