package dev.idem.processor;

import dev.idem.InFlight;
import dev.idem.KeyTime;
import dev.idem.Mode;
import dev.idem.Store;
import java.time.Duration;
import java.util.List;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.ExecutableType;
import javax.lang.model.type.TypeMirror;

/**
 * A validated {@code @IdempotentCommand} method.
 *
 * @param scope the namespace of the method's keys
 * @param resultShape the return type as the codec writes and reads it (void: the shape "void")
 * @param retention as written in the annotation, already checked to parse
 * @param keyParts the key's parts in declaration order
 * @param payloadParameters names of the parameters whose values are fingerprinted: every parameter that is not
 *     itself a key part (a parameter read through an accessor path is payload too)
 * @param mode how the key is claimed
 * @param lease ({@link Mode#CLAIM}) as written in the annotation, already checked to parse
 * @param onInFlight ({@link Mode#CLAIM}) what a second caller does
 * @param waitTimeout ({@link Mode#CLAIM}, {@link InFlight#WAIT}) as written in the annotation, checked to parse
 * @param replayOn the business failures stored and replayed, in the annotation's order
 * @param keyTime whether the key's first part carries its time (checked to be a String, or a UUID for UUID_V7)
 * @param onExpiredLease ({@link Mode#CLAIM}) the {@code dev.idem.ExpiredLease} constant's name
 * @param onUndeclaredFailure ({@link Mode#CLAIM}) the {@code dev.idem.UndeclaredFailure} constant's name
 * @param store where the records live ({@link Store#REDIS}: checked to be a plain CLAIM command)
 * @param derivedKey whether the key is derived ({@code window}): the identity parameter is the one key part, the
 *     payload's fingerprint completes the key at run time, and {@code retention} holds the window
 * @param lookupFirst whether a call outside any transaction reads the key's record before claiming it (checked to be
 *     a plain command with its records in the database)
 * @param reconciler ({@link Mode#CLAIM}) the interface's {@code @Reconciles} method for this command, or null
 */
record CommandMethod(ExecutableElement method, ExecutableType type, String scope,
                     CodecTypeReader.Shape resultShape, String retention,
                     List<KeyPart> keyParts, List<String> payloadParameters, Mode mode, String lease,
                     InFlight onInFlight, String waitTimeout, List<ReplayedFailure> replayOn, KeyTime keyTime,
                     String onExpiredLease, String onUndeclaredFailure, Store store, boolean derivedKey,
                     boolean lookupFirst, ExecutableElement reconciler)
    implements MethodModel {

  CommandMethod {
    keyParts = List.copyOf(keyParts);
    payloadParameters = List.copyOf(payloadParameters);
    replayOn = List.copyOf(replayOn);
    // validated before; a model is never built from bad input
    Duration.parse(retention);
    Duration.parse(lease);
    Duration.parse(waitTimeout);
  }

  /** @return this command with the {@code @Reconciles} method that reconciles its parked keys */
  CommandMethod withReconciler(ExecutableElement reconcilerMethod) {
    return new CommandMethod(method, type, scope, resultShape, retention, keyParts, payloadParameters, mode, lease,
        onInFlight, waitTimeout, replayOn, keyTime, onExpiredLease, onUndeclaredFailure, store, derivedKey,
        lookupFirst, reconcilerMethod);
  }

  TypeMirror returnType() {
    return type.getReturnType();
  }

  /** Whether the method returns {@code IdempotentResult<T>}, so that its callers learn whether they got a replay. */
  boolean returnsOutcome() {
    return isResultWrapper(returnType());
  }

  /** The type idem stores and replays: {@code T} of {@code IdempotentResult<T>}, else the return type. */
  TypeMirror storedType() {
    return returnsOutcome() ? ((DeclaredType) returnType()).getTypeArguments().get(0) : returnType();
  }

  /** Whether {@code type} is {@code IdempotentResult}, raw or parameterized. */
  static boolean isResultWrapper(TypeMirror type) {
    return type.getKind() == TypeKind.DECLARED
        && ((TypeElement) ((DeclaredType) type).asElement()).getQualifiedName()
            .contentEquals(RuntimeNames.IDEMPOTENT_RESULT.canonicalName());
  }

  /**
   * One part of an idempotency key: a parameter's own value, or the value at the end of an accessor path into it.
   *
   * @param parameter the parameter's name
   * @param path the accessor path as written in {@code @IdempotencyKey}, empty for the parameter's own value
   * @param accessors the accessor methods to call in order, parallel to the path's segments
   * @param accessorTypes the type each accessor returns, parallel to {@code accessors}
   */
  record KeyPart(String parameter, TypeMirror parameterType, String path, List<String> accessors,
                 List<TypeMirror> accessorTypes) {

    KeyPart {
      accessors = List.copyOf(accessors);
      accessorTypes = List.copyOf(accessorTypes);
    }

    boolean isWholeParameter() {
      return accessors.isEmpty();
    }

    /** How the part is named in runtime error messages: {@code requestId}, {@code msg.messageId}. */
    String displayName() {
      return path.isEmpty() ? parameter : parameter + "." + path;
    }
  }

  /**
   * A {@code replayOn} exception type and the constructor that recreates it from its accessors' values.
   *
   * @param type the exception type
   * @param accessors for each constructor parameter, the accessor returning its value
   * @param parameterTypes the constructor's parameter types, none of them generic
   */
  record ReplayedFailure(TypeMirror type, List<String> accessors, List<TypeMirror> parameterTypes) {

    ReplayedFailure {
      accessors = List.copyOf(accessors);
      parameterTypes = List.copyOf(parameterTypes);
    }
  }
}
