package dev.idem.processor;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.VariableElement;

/**
 * One annotation's values by member name, read once: what {@link Annotations#value} finds, for an annotation whose
 * members a validator asks for many times. javac's names are UTF-8 and {@code Name.contentEquals} converts one to a
 * string on every comparison, and {@code getElementValues()} builds a new map on every call; a command's validation
 * asks for about thirty values of its {@code @IdempotentCommand}, each of which compared every member's name anew.
 * Here each name is converted once. Valid for the round in which the mirror was read.
 */
final class AnnotationValues {

  private final AnnotationMirror mirror;
  private final Map<String, AnnotationValue> explicit = new HashMap<>();
  private final Map<String, AnnotationValue> defaults = new HashMap<>();

  private AnnotationValues(AnnotationMirror mirror) {
    this.mirror = mirror;
  }

  static AnnotationValues of(AnnotationMirror mirror) {
    AnnotationValues values = new AnnotationValues(mirror);
    for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> entry :
        mirror.getElementValues().entrySet()) {
      values.explicit.put(entry.getKey().getSimpleName().toString(), entry.getValue());
    }
    for (Element enclosed : mirror.getAnnotationType().asElement().getEnclosedElements()) {
      if (enclosed instanceof ExecutableElement method && method.getDefaultValue() != null) {
        values.defaults.putIfAbsent(method.getSimpleName().toString(), method.getDefaultValue());
      }
    }
    return values;
  }

  /** The annotation, where an error is reported. */
  AnnotationMirror mirror() {
    return mirror;
  }

  /** The value written in the source, or empty where the member was left at its default. */
  Optional<AnnotationValue> explicit(String member) {
    return Optional.ofNullable(explicit.get(member));
  }

  /** The value written in the source, else the member's declared default. */
  AnnotationValue value(String member) {
    AnnotationValue value = explicit.get(member);
    if (value == null) {
      value = defaults.get(member);
    }
    if (value == null) {
      throw new IllegalArgumentException("@" + mirror.getAnnotationType() + " has no value for " + member);
    }
    return value;
  }

  String string(String member) {
    return (String) value(member).getValue();
  }

  /** The name of the enum constant a member holds, e.g. {@code CLAIM}. */
  String enumConstant(String member) {
    return ((VariableElement) value(member).getValue()).getSimpleName().toString();
  }
}
