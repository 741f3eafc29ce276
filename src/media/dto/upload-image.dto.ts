import { IsOptional, IsString, MaxLength } from 'class-validator';

/** The text fields of the upload form; the file itself arrives through multer. */
export class UploadImageDto {
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string;
}
