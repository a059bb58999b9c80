package dev.idem.processor;

import dev.idem.processor.CommandMethod.KeyPart;
import dev.idem.processor.CommandMethod.ReplayedFailure;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Elements;

/**
 * The lint names a generated class must suppress because the service makes it use deprecated API: a user who
 * keeps a deprecated type in a signature has decided to, and a build with -Xlint:all -Werror must not fail on code
 * they cannot edit. Empty when nothing deprecated is used, so ordinary generated classes suppress nothing.
 */
final class Deprecations {

  private final Elements elements;

  Deprecations(Elements elements) {
    this.elements = elements;
  }

  /** {@code "deprecation"} and/or {@code "removal"}, in that order. */
  List<String> warningsToSuppress(ServiceModel model) {
    Set<Element> used = new LinkedHashSet<>();
    for (Element enclosing = model.type(); enclosing instanceof TypeElement; enclosing = enclosing.getEnclosingElement()) {
      used.add(enclosing);
    }
    for (MethodModel method : model.methods()) {
      used.add(method.method());
      List<TypeMirror> mentioned = new ArrayList<>(method.type().getParameterTypes());
      mentioned.add(method.type().getReturnType());
      mentioned.addAll(method.type().getThrownTypes());
      CommandMethod command = method instanceof BatchMethod batch ? batch.command()
          : method instanceof CommandMethod plain ? plain : null;
      if (command != null) {
        for (KeyPart part : command.keyParts()) {
          TypeMirror owner = part.parameterType();
          for (int i = 0; i < part.accessors().size(); i++) {
            addMember(owner, part.accessors().get(i), used);
            owner = part.accessorTypes().get(i);
          }
        }
        for (ReplayedFailure failure : command.replayOn()) {
          mentioned.add(failure.type());
          mentioned.addAll(failure.parameterTypes());
          for (String accessor : failure.accessors()) { // loops: no lambdas to link in each cold compile
            addMember(failure.type(), accessor, used);
          }
          addConstructors(failure.type(), used);
        }
      }
      if (method instanceof TransitionMethod transition) {
        used.add(transition.entity());
      }
      for (TypeMirror type : mentioned) {
        used.addAll(TypeMirrors.declaredElements(type));
      }
    }
    boolean deprecated = false;
    boolean forRemoval = false;
    for (Element element : used) {
      if (elements.isDeprecated(element)) {
        Deprecated annotation = element.getAnnotation(Deprecated.class);
        if (annotation != null && annotation.forRemoval()) {
          forRemoval = true;
        } else {
          deprecated = true;
        }
      }
    }
    List<String> names = new ArrayList<>();
    if (deprecated) {
      names.add("deprecation");
    }
    if (forRemoval) {
      names.add("removal");
    }
    return names;
  }

  /** The accessor, looked up in an element list the generated code may reach (a batch's message type too). */
  private void addMember(TypeMirror owner, String name, Set<Element> used) {
    TypeMirror declared = owner;
    if (declared.getKind() == TypeKind.DECLARED && !((DeclaredType) declared).getTypeArguments().isEmpty()
        && ((TypeElement) ((DeclaredType) declared).asElement()).getQualifiedName().toString().startsWith("java.util.")) {
      declared = ((DeclaredType) declared).getTypeArguments().get(0); // List<OrderPaid>: the accessor is OrderPaid's
    }
    if (declared.getKind() != TypeKind.DECLARED) {
      return;
    }
    TypeElement type = (TypeElement) ((DeclaredType) declared).asElement();
    for (ExecutableElement method : ElementFilter.methodsIn(elements.getAllMembers(type))) {
      if (method.getSimpleName().contentEquals(name) && method.getParameters().isEmpty()) {
        used.add(method);
      }
    }
  }

  private static void addConstructors(TypeMirror type, Set<Element> used) {
    if (type.getKind() == TypeKind.DECLARED) {
      for (Element member : ((DeclaredType) type).asElement().getEnclosedElements()) {
        if (member.getKind() == ElementKind.CONSTRUCTOR) {
          used.add(member);
        }
      }
    }
  }
}
