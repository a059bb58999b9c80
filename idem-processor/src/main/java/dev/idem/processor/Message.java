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
  MODE_NOT_SUPPORTED(
      "IDEM-013",
      "mode = %s is not supported by this version of idem. Use Mode.TRANSACTIONAL."),
  // IDEM-014 to IDEM-019 belong to the CLAIM mode.
  BATCH_RETURN_TYPE(
      "IDEM-020",
      "Batch method %s returns %s, but a batch handler stores no result per message. Declare it void, or int to"
          + " return the number of messages processed (0 when every message was a duplicate)."),
  BATCH_SEVERAL_COLLECTIONS(
      "IDEM-021",
      "Key parameters %s and %s are both collections, but a batch has one collection of messages. Keep the messages"
          + " in one List parameter and make the other key parts per-batch values, such as the consumer group."),
  BATCH_COLLECTION_TYPE(
      "IDEM-022",
      "Key parameter %s has type %s. A batch handler takes its messages as List<E> or Collection<E> of a message"
          + " type E, such as List<OrderPaid>, and resolves the accessor path on E: declare the parameter so."),
  BATCH_KEY_WITHOUT_PATH(
      "IDEM-023",
      "Key parameter %s has type %s, but each message of a batch needs its own key. Name the accessor of the"
          + " message id, such as @IdempotencyKey(\"messageId\").");

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
