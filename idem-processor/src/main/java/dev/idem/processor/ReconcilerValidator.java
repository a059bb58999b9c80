package dev.idem.processor;

import dev.idem.Mode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.ExecutableType;
import javax.lang.model.type.PrimitiveType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/**
 * Checks the {@code @Reconciles} methods of a service interface against the commands they name and attaches each
 * to its {@link CommandMethod} ({@link CommandMethod#reconciler()}): the name is a command of the interface
 * (IDEM-097), a CLAIM command that can park a key (IDEM-098), with the same parameter types (IDEM-099), the return
 * type {@code Reconciliation<R>} of the command's result type (IDEM-140), one reconciler per command (IDEM-141), not a command returning {@code IdempotentResult} (IDEM-143).
 */
final class ReconcilerValidator {

  static final String RECONCILIATION = RuntimeNames.USER_PACKAGE + ".Reconciliation";

  /** A method annotated {@code @Reconciles}, not yet checked against its command. */
  record Candidate(ExecutableElement method, ExecutableType type, AnnotationMirror annotation) {}

  private final Types types;
  private final Elements elements;

  ReconcilerValidator(Types types, Elements elements) {
    this.types = types;
    this.elements = elements;
  }

  /** @return {@code methods} with each reconciled command replaced by its copy that knows its reconciler */
  List<MethodModel> attach(TypeElement service, List<MethodModel> methods, List<Candidate> candidates,
      ValidationReport report) {
    List<MethodModel> result = new ArrayList<>(methods);
    Map<String, ExecutableElement> reconciled = new HashMap<>();
    for (Candidate candidate : candidates) {
      ExecutableElement method = candidate.method();
      AnnotationValue value = Annotations.value(candidate.annotation(), "value");
      String name = Annotations.stringValue(candidate.annotation(), "value");
      List<Integer> named = new ArrayList<>();
      for (int i = 0; i < result.size(); i++) {
        if (result.get(i).method().getSimpleName().contentEquals(name)) {
          named.add(i);
        }
      }
      if (named.size() != 1 || !(result.get(named.get(0)) instanceof CommandMethod
          || result.get(named.get(0)) instanceof BatchMethod)) {
        report.report(Message.RECONCILER_UNKNOWN_COMMAND, method, candidate.annotation(), value, name,
            method.getSimpleName(), service.getSimpleName());
        continue;
      }
      int index = named.get(0);
      if (result.get(index) instanceof BatchMethod) {
        report.report(Message.RECONCILER_COMMAND_NEVER_PARKS, method, candidate.annotation(), value, name,
            method.getSimpleName(), name + " is a batch method, whose keys are never parked");
        continue;
      }
      CommandMethod command = (CommandMethod) result.get(index);
      if (command.mode() != Mode.CLAIM) {
        report.report(Message.RECONCILER_COMMAND_NEVER_PARKS, method, candidate.annotation(), value, name,
            method.getSimpleName(), name + " is a " + command.mode() + " command");
        continue;
      }
      if (!"PARK".equals(command.onExpiredLease()) && !"PARK".equals(command.onUndeclaredFailure())) {
        report.report(Message.RECONCILER_COMMAND_NEVER_PARKS, method, candidate.annotation(), value, name,
            method.getSimpleName(), name + " parks no key (onExpiredLease = " + command.onExpiredLease()
                + ", onUndeclaredFailure = " + command.onUndeclaredFailure() + ")");
        continue;
      }
      if (command.returnsOutcome()) {
        report.report(Message.RECONCILER_OF_RESULT_WRAPPER, method, candidate.annotation(), value,
            method.getSimpleName(), name, command.storedType(), command.storedType());
        continue;
      }
      boolean valid = true;
      if (!sameTypes(candidate.type().getParameterTypes(), command.type().getParameterTypes())) {
        report.report(Message.RECONCILER_PARAMETERS, method, candidate.annotation(), method.getSimpleName(),
            describe(candidate.type().getParameterTypes()), name, describe(command.type().getParameterTypes()));
        valid = false;
      }
      TypeMirror expected = resultType(command);
      if (!returnsReconciliationOf(candidate.type().getReturnType(), expected)) {
        report.report(Message.RECONCILER_RESULT_TYPE, method, candidate.annotation(), method.getSimpleName(),
            candidate.type().getReturnType(), expected, name);
        valid = false;
      }
      ExecutableElement earlier = reconciled.putIfAbsent(name, method);
      if (earlier != null) {
        report.report(Message.RECONCILER_DUPLICATE, method, candidate.annotation(), value,
            method.getSimpleName(), name, earlier.getSimpleName());
        valid = false;
      }
      if (valid) {
        result.set(index, command.withReconciler(method));
      }
    }
    return result;
  }

  private boolean sameTypes(List<? extends TypeMirror> a, List<? extends TypeMirror> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (!types.isSameType(a.get(i), b.get(i))) {
        return false;
      }
    }
    return true;
  }

  /** The command's stored result type, boxed; {@code Void} for a void command. */
  private TypeMirror resultType(CommandMethod command) {
    TypeMirror stored = command.storedType();
    if (stored.getKind() == TypeKind.VOID) {
      return elements.getTypeElement("java.lang.Void").asType();
    }
    if (stored.getKind().isPrimitive()) {
      return types.boxedClass((PrimitiveType) stored).asType();
    }
    return stored;
  }

  private boolean returnsReconciliationOf(TypeMirror returned, TypeMirror expected) {
    if (returned.getKind() != TypeKind.DECLARED) {
      return false;
    }
    DeclaredType declared = (DeclaredType) returned;
    return ((TypeElement) declared.asElement()).getQualifiedName().contentEquals(RECONCILIATION)
        && declared.getTypeArguments().size() == 1
        && types.isSameType(declared.getTypeArguments().get(0), expected);
  }

  private static String describe(List<? extends TypeMirror> parameterTypes) {
    return parameterTypes.stream().map(TypeMirror::toString).collect(Collectors.joining(", "));
  }
}
