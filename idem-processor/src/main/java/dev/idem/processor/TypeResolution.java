package dev.idem.processor;

import com.sun.source.tree.Tree;
import com.sun.source.util.Trees;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.TypeParameterElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.type.WildcardType;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.SimpleAnnotationValueVisitor14;

/**
 * Finds a type that a service interface names but that does not exist yet, typically one another annotation
 * processor generates in a later round. Modelled on auto-common's {@code SuperficialValidation}, cut down to what
 * idem reads: the interface's super-interfaces (recursively), and of every method the return type, the parameter
 * types, the {@code throws} clause, type-parameter bounds and the values of its annotations and of its parameters'
 * annotations ({@code entity = Order.class}, {@code replayOn = {...}}).
 *
 * <p>Such a service is deferred to the next round; what is still missing in the last round is reported with
 * {@link Message#TYPE_NEVER_GENERATED}.
 */
final class TypeResolution {

  /**
   * A missing type and where the service names it.
   *
   * @param element the method, parameter or interface that names the type
   * @param annotation the annotation holding {@code value}, or null where a signature names the type
   * @param value the annotation value naming the type, or null
   * @param typeName the type as written, as far as the compiler can tell
   */
  record Unresolved(Element element, AnnotationMirror annotation, AnnotationValue value, String typeName) {}

  /** javac's stand-in for a class literal it cannot resolve, in an annotation value. */
  private static final String ERROR_VALUE = "<error>";

  /** The compiler's source trees, to name an unresolved class literal; null outside javac. */
  private final Trees trees;

  TypeResolution(ProcessingEnvironment env) {
    this.trees = treesOf(env);
  }

  /** The first type {@code service} names that does not exist, or empty if every type it names resolves. */
  Optional<Unresolved> firstUnresolved(TypeElement service) {
    return firstUnresolved(service, new HashSet<>());
  }

  private Optional<Unresolved> firstUnresolved(TypeElement type, Set<TypeElement> visited) {
    if (!visited.add(type)) {
      return Optional.empty();
    }
    for (TypeMirror superInterface : type.getInterfaces()) {
      Optional<String> missing = missing(superInterface);
      if (missing.isPresent()) {
        return Optional.of(new Unresolved(type, null, null, missing.get()));
      }
      if (superInterface instanceof DeclaredType declared
          && declared.asElement() instanceof TypeElement superType) {
        Optional<Unresolved> inherited = firstUnresolved(superType, visited);
        if (inherited.isPresent()) {
          return inherited;
        }
      }
    }
    for (ExecutableElement method : ElementFilter.methodsIn(type.getEnclosedElements())) {
      Optional<Unresolved> unresolved = firstUnresolved(method);
      if (unresolved.isPresent()) {
        return unresolved;
      }
    }
    return Optional.empty();
  }

  private Optional<Unresolved> firstUnresolved(ExecutableElement method) {
    Optional<String> missing = missing(method.getReturnType());
    for (TypeMirror thrown : method.getThrownTypes()) {
      missing = missing.or(() -> missing(thrown));
    }
    for (TypeParameterElement parameter : method.getTypeParameters()) {
      for (TypeMirror bound : parameter.getBounds()) {
        missing = missing.or(() -> missing(bound));
      }
    }
    if (missing.isPresent()) {
      return Optional.of(new Unresolved(method, null, null, missing.get()));
    }
    Optional<Unresolved> inAnnotations = inAnnotations(method);
    if (inAnnotations.isPresent()) {
      return inAnnotations;
    }
    for (VariableElement parameter : method.getParameters()) {
      Optional<String> parameterType = missing(parameter.asType());
      if (parameterType.isPresent()) {
        return Optional.of(new Unresolved(parameter, null, null, parameterType.get()));
      }
      Optional<Unresolved> parameterAnnotations = inAnnotations(parameter);
      if (parameterAnnotations.isPresent()) {
        return parameterAnnotations;
      }
    }
    return Optional.empty();
  }

  private Optional<Unresolved> inAnnotations(Element element) {
    for (AnnotationMirror annotation : element.getAnnotationMirrors()) {
      if (annotation.getAnnotationType().getKind() == TypeKind.ERROR) {
        continue; // not one of idem's, whose types are on the class path; idem reads nothing from it
      }
      for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> entry
          : annotation.getElementValues().entrySet()) {
        Optional<String> missing = missing(entry.getValue(), entry.getKey().getReturnType());
        if (missing.isPresent()) {
          String name = missing.get().equals(ERROR_VALUE)
              ? sourceOf(element, annotation, entry.getValue()).orElse(entry.getKey().getSimpleName() + " = ?")
              : missing.get();
          return Optional.of(new Unresolved(element, annotation, entry.getValue(), name));
        }
      }
    }
    return Optional.empty();
  }

  /** The missing type in an annotation value, or {@value #ERROR_VALUE} where javac cannot even name it. */
  private static Optional<String> missing(AnnotationValue value, TypeMirror expected) {
    return value.accept(new SimpleAnnotationValueVisitor14<Optional<String>, TypeMirror>(Optional.empty()) {
      @Override
      public Optional<String> visitType(TypeMirror type, TypeMirror expectedType) {
        return missing(type);
      }

      @Override
      public Optional<String> visitString(String string, TypeMirror expectedType) {
        // javac hands over an unresolvable class literal as the string "<error>" where a Class was expected.
        boolean expectsString = expectedType.getKind() == TypeKind.DECLARED
            && ((TypeElement) ((DeclaredType) expectedType).asElement()).getQualifiedName()
                .contentEquals("java.lang.String");
        return expectsString ? Optional.empty() : Optional.of(ERROR_VALUE);
      }

      @Override
      public Optional<String> visitArray(List<? extends AnnotationValue> values, TypeMirror expectedType) {
        TypeMirror component = expectedType.getKind() == TypeKind.ARRAY
            ? ((ArrayType) expectedType).getComponentType()
            : expectedType;
        for (AnnotationValue element : values) {
          Optional<String> missing = missing(element, component);
          if (missing.isPresent()) {
            return missing;
          }
        }
        return Optional.empty();
      }
    }, expected);
  }

  /** The name of the first missing type within {@code type}: itself, a type argument, a bound, a component. */
  private static Optional<String> missing(TypeMirror type) {
    switch (type.getKind()) {
      case ERROR:
        return Optional.of(type.toString());
      case ARRAY:
        return missing(((ArrayType) type).getComponentType());
      case WILDCARD:
        WildcardType wildcard = (WildcardType) type;
        return Optional.ofNullable(wildcard.getExtendsBound()).flatMap(TypeResolution::missing)
            .or(() -> Optional.ofNullable(wildcard.getSuperBound()).flatMap(TypeResolution::missing));
      case DECLARED:
        for (TypeMirror argument : ((DeclaredType) type).getTypeArguments()) {
          Optional<String> missing = missing(argument);
          if (missing.isPresent()) {
            return missing;
          }
        }
        return Optional.empty();
      default:
        return Optional.empty();
    }
  }

  /** {@code Order} for {@code entity = Order.class}, read from the source where the compiler offers it. */
  private Optional<String> sourceOf(Element element, AnnotationMirror annotation, AnnotationValue value) {
    if (trees == null) {
      return Optional.empty();
    }
    Tree tree = trees.getTree(element, annotation, value);
    return Optional.ofNullable(tree).map(Object::toString).map(text -> text.replaceFirst("\\.class$", ""));
  }

  private static Trees treesOf(ProcessingEnvironment env) {
    try {
      return Trees.instance(env);
    } catch (IllegalArgumentException | LinkageError e) {
      return null; // not javac (e.g. Eclipse's compiler), or a wrapped environment: names fall back to the member
    }
  }
}
