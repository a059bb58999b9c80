package dev.idem;

/** How an {@link IdempotentCommand} claims its key relative to the delegate's work. */
public enum Mode {
  /**
   * The claim, the delegate's database writes and the stored result commit in one local transaction. Right when
   * every effect of the command is a write to the same database.
   */
  TRANSACTIONAL,

  /**
   * The claim commits on its own, with a lease and an owner token, before the delegate runs; completion is fenced by
   * the token. Right when the command has effects outside the database (a payment gateway, a mail).
   */
  CLAIM
}
