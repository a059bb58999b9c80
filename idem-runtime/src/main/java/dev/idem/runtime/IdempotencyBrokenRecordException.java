package dev.idem.runtime;

/**
 * A committed record does not hold the outcome it stands for, so it can be neither replayed nor run again safely: a
 * completed record without its result (SQL NULL where even a null result is stored as JSON {@code null}), or a claim
 * committed before its command finished (the body ended idem's transaction early, e.g. by DDL, which commits
 * implicitly on MariaDB, MySQL and H2). Nothing ran. Whether the first execution's effects happened must be checked
 * by hand; then delete the record (or let it expire) so that the key can run again.
 */
public class IdempotencyBrokenRecordException extends IdempotencyException {

  private static final long serialVersionUID = 1L;

  private final String scope;
  private final String key;

  /**
   * @param scope the command's scope
   * @param key the composed idempotency key
   * @param problem what is wrong with the record
   */
  public IdempotencyBrokenRecordException(String scope, String key, String problem) {
    super("The record of " + scope + " key '" + key + "' is broken: " + problem + ". Nothing ran; check whether "
        + "the first execution's effects happened, then delete the record (or let it expire) to run the key again");
    this.scope = scope;
    this.key = key;
  }

  /** @return the command's scope */
  public String scope() {
    return scope;
  }

  /** @return the composed idempotency key */
  public String key() {
    return key;
  }
}
