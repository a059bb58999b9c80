package dev.idem.processor;

import java.util.HashMap;
import java.util.Map;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;

/**
 * The scopes claimed so far in this compilation. Two commands sharing a scope would replay each other's results
 * for equal keys, so the second one is an error.
 */
final class ScopeRegistry {

  private final Map<String, ExecutableElement> owners = new HashMap<>();

  /** Records the scope for the method; false (and a report) if another method already has it. */
  boolean register(String scope, ExecutableElement method, AnnotationMirror command, ValidationReport report) {
    ExecutableElement owner = owners.putIfAbsent(scope, method);
    if (owner == null || owner.equals(method)) {
      return true;
    }
    report.report(Message.SCOPE_DUPLICATE, method, command, scope, describe(owner));
    return false;
  }

  private static String describe(ExecutableElement method) {
    Element enclosing = method.getEnclosingElement();
    String owner = enclosing instanceof TypeElement type ? type.getQualifiedName().toString() : enclosing.toString();
    return owner + "." + method.getSimpleName() + "()";
  }
}
