package dev.idem.processor;

import dev.idem.Mode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.type.WildcardType;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/**
 * Recognizes batch handlers: a key parameter of type {@code List<E>} or {@code Collection<E>} with an accessor path
 * makes the method a batch handler, whose path is resolved on {@code E}. Checks what only batch handlers must obey.
 * One instance per method ({@link #forMethod()}), since it collects the method's collection key parameters.
 */
final class BatchValidator {

  private static final List<String> BATCH_TYPES = List.of("java.util.List", "java.util.Collection");

  private final Elements elements;
  private final Types types;
  private final List<VariableElement> batchParameters = new ArrayList<>();
  private final List<AnnotationMirror> batchKeys = new ArrayList<>();

  BatchValidator(ProcessingEnvironment env) {
    this(env.getElementUtils(), env.getTypeUtils());
  }

  private BatchValidator(Elements elements, Types types) {
    this.elements = elements;
    this.types = types;
  }

  /** A fresh validator for the next method. */
  BatchValidator forMethod() {
    return new BatchValidator(elements, types);
  }

  /**
   * The type an accessor path of a key parameter is resolved on: the element type of a batch parameter, else the
   * parameter's own type.
   *
   * @return empty if the parameter is a collection or array of another kind, reported
   */
  Optional<TypeMirror> pathTarget(VariableElement parameter, TypeMirror type, AnnotationMirror key,
                                  AnnotationValue path, ValidationReport report) {
    if (isBatchType(type)) {
      Optional<TypeMirror> element = elementType((DeclaredType) type);
      if (element.isPresent()) {
        batchParameters.add(parameter);
        batchKeys.add(key);
        return element;
      }
    } else if (!isCollectionLike(type)) {
      return Optional.of(type);
    }
    report.report(Message.BATCH_COLLECTION_TYPE, parameter, key, path, parameter.getSimpleName(), type);
    return Optional.empty();
  }

  /** Reports a key parameter that holds a batch but has no accessor path; false if it was reported. */
  boolean checkWholeParameter(VariableElement parameter, TypeMirror type, AnnotationMirror key,
                              ValidationReport report) {
    if (isBatchType(type) && elementType((DeclaredType) type).isPresent()) {
      report.report(Message.BATCH_KEY_WITHOUT_PATH, parameter, key, parameter.getSimpleName(), type);
      return false;
    }
    return true;
  }

  /** The method as a batch handler if it has a batch parameter, else as a plain command; empty if reported. */
  Optional<MethodModel> model(CommandMethod command, AnnotationMirror annotation, ValidationReport report) {
    if (batchParameters.isEmpty()) {
      return Optional.of(command);
    }
    boolean valid = true;
    Optional<AnnotationValue> store = Annotations.explicitValue(annotation, "store");
    if (command.store() != dev.idem.Store.DATABASE && store.isPresent()) {
      report.report(Message.STORE_REDIS_BATCH, command.method(), annotation, store.get(),
          command.method().getSimpleName());
      valid = false;
    }
    Optional<AnnotationValue> lookupFirst = Annotations.explicitValue(annotation, "lookupFirst");
    if (command.lookupFirst() && lookupFirst.isPresent()) {
      report.report(Message.LOOKUP_FIRST_BATCH, command.method(), annotation, lookupFirst.get(),
          command.method().getSimpleName());
      valid = false;
    }
    // A batch claims its messages and runs the handler in one transaction; a failure rolls the whole batch back
    // so that the broker redelivers it. Leases and stored failures have no meaning for it.
    for (String member : List.of("mode", "replayOn")) {
      Optional<AnnotationValue> value = Annotations.explicitValue(annotation, member);
      boolean set = member.equals("mode") ? command.mode() != Mode.TRANSACTIONAL : !command.replayOn().isEmpty();
      if (set && value.isPresent()) {
        report.report(Message.BATCH_NOT_TRANSACTIONAL, command.method(), annotation, value.get(),
            command.method().getSimpleName(), member, member);
        valid = false;
      }
    }
    if (batchParameters.size() > 1) {
      report.report(Message.BATCH_SEVERAL_COLLECTIONS, batchParameters.get(1), batchKeys.get(1),
          batchParameters.get(0).getSimpleName(), batchParameters.get(1).getSimpleName());
      valid = false;
    }
    ExecutableElement method = command.method();
    TypeMirror returnType = command.returnType();
    if (returnType.getKind() != TypeKind.VOID && returnType.getKind() != TypeKind.INT) {
      report.report(Message.BATCH_RETURN_TYPE, method, method.getSimpleName(), returnType);
      valid = false;
    }
    if (!valid) {
      return Optional.empty();
    }
    String batchParameter = batchParameters.get(0).getSimpleName().toString();
    for (int i = 0; i < command.keyParts().size(); i++) {
      if (command.keyParts().get(i).parameter().equals(batchParameter)) {
        return Optional.of(new BatchMethod(command, i));
      }
    }
    throw new IllegalStateException("the batch parameter " + batchParameter + " is not a key part");
  }

  /** @return whether a key parameter seen so far holds a batch of messages */
  boolean isBatch() {
    return !batchParameters.isEmpty();
  }

  private boolean isBatchType(TypeMirror type) {
    if (type.getKind() != TypeKind.DECLARED) {
      return false;
    }
    TypeElement element = (TypeElement) ((DeclaredType) type).asElement();
    return BATCH_TYPES.contains(element.getQualifiedName().toString());
  }

  /** Arrays and other collections: the messages of a batch must come as List or Collection. */
  private boolean isCollectionLike(TypeMirror type) {
    if (type.getKind() == TypeKind.ARRAY) {
      return true;
    }
    TypeElement iterable = elements.getTypeElement("java.lang.Iterable");
    return type.getKind() == TypeKind.DECLARED
        && types.isAssignable(types.erasure(type), types.erasure(iterable.asType()));
  }

  /** {@code E} of {@code List<E>} or {@code List<? extends E>}; empty for raw types, {@code ?} and type variables. */
  private static Optional<TypeMirror> elementType(DeclaredType type) {
    if (type.getTypeArguments().size() != 1) {
      return Optional.empty();
    }
    TypeMirror argument = type.getTypeArguments().get(0);
    if (argument.getKind() == TypeKind.WILDCARD) {
      argument = ((WildcardType) argument).getExtendsBound();
    }
    return argument != null && argument.getKind() == TypeKind.DECLARED ? Optional.of(argument) : Optional.empty();
  }
}
