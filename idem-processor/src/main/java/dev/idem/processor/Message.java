package dev.idem.processor;

import javax.tools.Diagnostic;

/**
 * Every diagnostic the processor reports, in one place. Each has a stable tag (quoted in the README and safe to
 * search for) and a sentence that says what is wrong and how to fix it.
 */
enum Message {
  NOT_AN_INTERFACE_METHOD(
      "IDEM-001",
      "@%s must be on an abstract method of an interface, but %s is %s. Put it on a method of the service"
          + " interface; idem generates the implementing class."),
  GENERIC_METHOD(
      "IDEM-002",
      "Method %s declares type parameters; a stored result is replayed with one concrete type. Replace the type"
          + " parameters with concrete types."),
  GENERIC_INTERFACE(
      "IDEM-003",
      "Interface %s declares type parameters, so idem cannot generate one class for it. Declare a non-generic"
          + " sub-interface that fixes them (interface OrderCommands extends %s<Order>) and move the annotations"
          + " there."),
  NO_KEY(
      "IDEM-004",
      "@IdempotentCommand method %s has no @IdempotencyKey parameter. Mark the parameter that identifies one"
          + " business action, e.g. @IdempotencyKey String requestId."),
  KEY_PATH_SYNTAX(
      "IDEM-005",
      "@IdempotencyKey(\"%s\") is not an accessor path. Write accessor names separated by dots, such as"
          + " \"messageId\" or \"header.messageId\"."),
  KEY_PATH_UNRESOLVED(
      "IDEM-006",
      "@IdempotencyKey(\"%s\") cannot be resolved: %s has no accessor %s() or %s(). Name a public no-argument"
          + " accessor of %s; nested paths are written a.b."),
  KEY_TYPE_UNSUPPORTED(
      "IDEM-007",
      "Idempotency key part %s has type %s. Key parts may be String, UUID, an integral number (byte, short, int,"
          + " long, their wrappers, BigInteger) or an enum; point the key at such a value."),
  DURATION_INVALID(
      "IDEM-008",
      "%s = \"%s\" is not a positive ISO-8601 duration of at least one millisecond. Write a duration such as \"PT30S\", \"PT15M\" or \"P1D\""
          + " (months and years are not durations: use days, e.g. \"P30D\")."),
  SCOPE_INVALID(
      "IDEM-009",
      "scope = \"%s\" must be 1 to 128 characters of letters, digits and ._:- because it namespaces the stored"
          + " keys. Choose a name such as \"payments.charge\"."),
  SCOPE_DUPLICATE(
      "IDEM-010",
      "Scope \"%s\" is already used by %s. Each command needs its own scope, or a retry of one would replay the"
          + " other's result: set a distinct scope on one of them."),
  RETURN_TYPE_NOT_STORABLE(
      "IDEM-011",
      "%s returns %s, which cannot be stored and replayed to a retry. Return the data itself (a value, a record,"
          + " a List or Map of them) instead of %s."),
  KEY_WITHOUT_COMMAND(
      "IDEM-012",
      "@IdempotencyKey on parameter %s has no effect because %s is not annotated @IdempotentCommand. Annotate the"
          + " method or remove @IdempotencyKey."),
  // IDEM-013 is retired (it rejected mode = CLAIM before idem supported it); tags are never reused.
  REPLAY_ON_NOT_THROWN(
      "IDEM-014",
      "replayOn lists %s, a checked exception that %s does not declare, so its delegate can never throw it. Add it"
          + " to the method's throws clause, or remove it from replayOn."),
  REPLAY_ON_NOT_RECREATABLE(
      "IDEM-015",
      "replayOn lists %s, which idem cannot recreate for a retry: %s. Give it a public constructor whose parameters"
          + " each have a public accessor of the same name and type, e.g. CardDeclinedException(String message,"
          + " String declineCode) with getMessage() and declineCode().");

  private final String tag;
  private final String format;
  private final Diagnostic.Kind kind;

  Message(String tag, String format) {
    this(tag, format, Diagnostic.Kind.ERROR);
  }

  Message(String tag, String format, Diagnostic.Kind kind) {
    this.tag = tag;
    this.format = format;
    this.kind = kind;
  }

  String tag() {
    return tag;
  }

  Diagnostic.Kind kind() {
    return kind;
  }

  String format(Object... args) {
    return "[" + tag + "] " + String.format(format, args);
  }
}
