package dev.idem.runtime;

/**
 * Two different commands use one scope on one runtime: their keys would share one namespace, so one could replay
 * the other's results. Thrown the first time the second command is called, before anything runs or is stored. Give
 * one of them its own scope ({@code @IdempotentCommand(scope = ...)}); the default scope, the fully qualified
 * interface name and the method name, is unique.
 */
public class IdempotencyScopeConflictException extends IdempotencyException {

  private static final long serialVersionUID = 1L;

  private final String scope;

  /**
   * @param scope the shared scope
   * @param first the command that used the scope first on this runtime
   * @param second the command called now
   */
  public IdempotencyScopeConflictException(String scope, String first, String second) {
    super("Two different commands use the scope '" + scope + "' on one runtime, so that one could replay the "
        + "other's results: first " + first + ", now " + second + ". Give one of them a scope of its own");
    this.scope = scope;
  }

  /** @return the shared scope */
  public String scope() {
    return scope;
  }
}
