package dev.idem.runtime;

import java.sql.SQLException;

/**
 * {@code commit()} itself failed (its acknowledgement was lost, the connection was cut while committing): the
 * database may have committed the work or not, and nobody on this side can tell. Retrying with the same key is
 * safe and settles it: if the work committed, the retry replays the recorded outcome; if not, it runs the command.
 * (For {@link IdemRuntime#inTransaction} work without an idempotent command, there is no record to settle it: check
 * the work's own rows.)
 */
public class IdempotencyCommitUnknownException extends IdempotencyStoreException {

  private static final long serialVersionUID = 1L;

  private final String scope;
  private final String key;

  /**
   * @param scope the command's scope, or null for {@link IdemRuntime#inTransaction} work
   * @param key the composed idempotency key, or null where unknown
   * @param cause the failure of {@code commit()}
   */
  public IdempotencyCommitUnknownException(String scope, String key, SQLException cause) {
    this(scope, key, scope == null
        ? "check whether its writes are there before doing the work again"
        : "a retry with the same key replays the recorded result if it committed, and runs the command if it did not",
        cause);
  }

  /**
   * @param scope the command's scope, or null for {@link IdemRuntime#inTransaction} work
   * @param key the composed idempotency key, or null where unknown
   * @param whatARetryDoes what a retry with the same key meets, where it differs from the rule above (a {@code CLAIM}
   *     command's completion)
   * @param cause the failure of {@code commit()}
   */
  public IdempotencyCommitUnknownException(String scope, String key, String whatARetryDoes, SQLException cause) {
    super(describe(scope, key) + whatARetryDoes, cause);
    this.scope = scope;
    this.key = key;
  }

  private static String describe(String scope, String key) {
    String what = scope == null ? "The commit of a runtime.inTransaction(...) transaction"
        : "The commit of " + scope + (key == null ? "" : " key '" + key + "'");
    return what + " failed, so its outcome is unknown: the database may have committed it or not; ";
  }

  /** @return the command's scope, or null for {@link IdemRuntime#inTransaction} work */
  public String scope() {
    return scope;
  }

  /** @return the composed idempotency key, or null where unknown */
  public String key() {
    return key;
  }
}
