import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC_KEY = 'petstore:public';

/** Opts a route out of authentication; every other route requires a credential. */
export const Public = () => SetMetadata(IS_PUBLIC_KEY, true);
