import { IsString, Length } from 'class-validator';

/** Loose bounds: a login reports a wrong pair, not which rule a stored value follows. */
export class LoginDto {
  @IsString()
  @Length(1, 254)
  username: string;

  @IsString()
  @Length(1, 1024)
  password: string;
}
