package dev.idem.processor;

import java.time.Duration;
import java.util.List;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.type.ExecutableType;
import javax.lang.model.type.TypeMirror;

/**
 * A validated {@code @IdempotentCommand} method.
 *
 * @param scope the namespace of the method's keys
 * @param retention as written in the annotation, already checked to parse
 * @param keyParts the key's parts in declaration order
 * @param payloadParameters names of the parameters whose values are fingerprinted: every parameter that is not
 *     itself a key part (a parameter read through an accessor path is payload too)
 */
record CommandMethod(ExecutableElement method, ExecutableType type, String scope, String retention,
                     List<KeyPart> keyParts, List<String> payloadParameters) implements MethodModel {

  CommandMethod {
    keyParts = List.copyOf(keyParts);
    payloadParameters = List.copyOf(payloadParameters);
    Duration.parse(retention); // validated before; a model is never built from bad input
  }

  TypeMirror returnType() {
    return type.getReturnType();
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
}
