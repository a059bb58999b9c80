package dev.idem.processor;

import com.palantir.javapoet.ClassName;

/**
 * Every runtime class the generated code names, in one place. Generated classes call only {@code
 * dev.idem.runtime.internal} (the door for generated code, versioned with this processor), apart from the
 * application-facing {@code IdemRuntime} they take in their constructor and the types users see in signatures.
 */
final class RuntimeNames {

  static final String USER_PACKAGE = "dev.idem.runtime";
  static final String INTERNAL_PACKAGE = "dev.idem.runtime.internal";

  static final ClassName IDEM_RUNTIME = ClassName.get(USER_PACKAGE, "IdemRuntime");
  static final ClassName DIALECT = ClassName.get(USER_PACKAGE, "Dialect");
  static final ClassName TRANSITION_RESULT = ClassName.get(USER_PACKAGE, "TransitionResult");
  /** A command's result with the replay signal; the processor recognizes it as a return type. */
  static final ClassName IDEMPOTENT_RESULT = ClassName.get(USER_PACKAGE, "IdempotentResult");

  static final ClassName IDEM_ENGINE = ClassName.get(INTERNAL_PACKAGE, "IdemEngine");
  static final ClassName COMMAND_SPEC = ClassName.get(INTERNAL_PACKAGE, "CommandSpec");
  static final ClassName RESULT_TYPE = ClassName.get(INTERNAL_PACKAGE, "ResultType");
  static final ClassName COMMAND_BODY = ClassName.get(INTERNAL_PACKAGE, "CommandBody");
  static final ClassName REPLAYABLE_FAILURE = ClassName.get(INTERNAL_PACKAGE, "ReplayableFailure");
  static final ClassName TRANSITION_SPEC = ClassName.get(INTERNAL_PACKAGE, "TransitionSpec");
  static final ClassName SINGLE_FLIGHT_SPEC = ClassName.get(INTERNAL_PACKAGE, "SingleFlightSpec");
  static final ClassName OUTBOX_EVENT_SPEC = ClassName.get(INTERNAL_PACKAGE, "OutboxEventSpec");

  private RuntimeNames() {}
}
