/** A rendered mail: its subject and its two bodies, plain text and HTML. */
export interface Mail {
  /**
   * The template's name (its owner module's): the metrics'
   * label, the `.eml` file's name, and what a message's hand-over sent already.
   */
  template: string;
  subject: string;
  text: string;
  html: string;
  /** The links it carries (logged when mails are written to files, in development). */
  links: string[];
}
