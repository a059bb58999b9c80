package dev.idem.processor;

import java.util.Map;
import java.util.Optional;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;

/** Reads annotations as mirrors, so that class-valued members and error positions stay available. */
final class Annotations {

  static final String IDEMPOTENT_COMMAND = "dev.idem.IdempotentCommand";
  static final String IDEMPOTENCY_KEY = "dev.idem.IdempotencyKey";
  static final String STATE_TRANSITION = "dev.idem.StateTransition";
  static final String SINGLE_FLIGHT = "dev.idem.SingleFlight";
  static final String RECONCILES = "dev.idem.Reconciles";
  static final String OUTBOX_EVENT = "dev.idem.OutboxEvent";
  static final String ENTITY_ID = "dev.idem.EntityId";
  static final String EXPECTED_VERSION = "dev.idem.ExpectedVersion";

  private Annotations() {}

  static Optional<AnnotationMirror> find(Element element, String qualifiedName) {
    for (AnnotationMirror mirror : element.getAnnotationMirrors()) {
      TypeElement type = (TypeElement) mirror.getAnnotationType().asElement();
      if (type.getQualifiedName().contentEquals(qualifiedName)) {
        return Optional.of(mirror);
      }
    }
    return Optional.empty();
  }

  /** The value written in the source, or empty where the member was left at its default. */
  static Optional<AnnotationValue> explicitValue(AnnotationMirror mirror, String member) {
    for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> entry :
        mirror.getElementValues().entrySet()) {
      if (entry.getKey().getSimpleName().contentEquals(member)) {
        return Optional.of(entry.getValue());
      }
    }
    return Optional.empty();
  }

  /** The value written in the source, else the member's declared default. */
  static AnnotationValue value(AnnotationMirror mirror, String member) {
    Optional<AnnotationValue> explicit = explicitValue(mirror, member); // no lambda to link for orElseGet
    return explicit.isPresent() ? explicit.get() : defaultValue(mirror, member);
  }

  static String stringValue(AnnotationMirror mirror, String member) {
    return (String) value(mirror, member).getValue();
  }

  private static AnnotationValue defaultValue(AnnotationMirror mirror, String member) {
    for (Element enclosed : mirror.getAnnotationType().asElement().getEnclosedElements()) {
      if (enclosed instanceof ExecutableElement method && method.getSimpleName().contentEquals(member)) {
        AnnotationValue value = method.getDefaultValue();
        if (value != null) {
          return value;
        }
      }
    }
    throw new IllegalArgumentException("@" + mirror.getAnnotationType() + " has no value for " + member);
  }
}
