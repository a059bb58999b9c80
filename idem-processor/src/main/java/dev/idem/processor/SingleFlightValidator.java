package dev.idem.processor;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.ExecutableType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;

/**
 * Checks a {@code @SingleFlight} method: durations, what a call that did not get the lock returns, the lock's name
 * (valid, and unique in the compilation: two methods on one lock would exclude each other and share tokens).
 */
final class SingleFlightValidator {

  private static final int MAX_NAME_LENGTH = 255;

  /** The lock names claimed so far in this compilation, like {@link ScopeRegistry}'s scopes. */
  private final Map<String, ExecutableElement> owners = new HashMap<>();

  Optional<MethodModel> validate(ExecutableElement method, ExecutableType type, AnnotationMirror annotation,
                                 ValidationReport report) {
    boolean clean = true;
    Duration atMost = duration(method, annotation, "lockAtMostFor", true, report);
    Duration atLeast = duration(method, annotation, "lockAtLeastFor", false, report);
    Duration waitTimeout = duration(method, annotation, "waitTimeout", false, report);
    clean &= atMost != null && atLeast != null && waitTimeout != null;
    if (atMost != null && atLeast != null && atLeast.compareTo(atMost) >= 0) {
      report.report(Message.SINGLE_FLIGHT_AT_LEAST_NOT_BELOW_AT_MOST, method, annotation,
          Annotations.value(annotation, "lockAtLeastFor"), method.getSimpleName(), atLeast, atMost);
      clean = false;
    }
    String onBusy = Annotations.value(annotation, "onBusy").getValue().toString();
    Optional<AnnotationValue> explicitWait = Annotations.explicitValue(annotation, "waitTimeout");
    if (explicitWait.isPresent() && !onBusy.equals("WAIT")) {
      report.report(Message.SINGLE_FLIGHT_WAIT_TIMEOUT_WITHOUT_WAIT, method, annotation, explicitWait.get(),
          method.getSimpleName());
      clean = false;
    }
    String name = name(method, annotation, report);
    clean &= name != null;

    TypeMirror returned = type.getReturnType();
    boolean returnsOptional = isOptional(returned);
    if (returned.getKind() != TypeKind.VOID && !returnsOptional) {
      report.report(Message.SINGLE_FLIGHT_RETURN_TYPE, method, method.getSimpleName(), returned,
          returned.getKind().isPrimitive() ? boxedName(returned) : returned);
      clean = false;
    }
    if (!clean) {
      return Optional.empty();
    }
    ExecutableElement owner = owners.putIfAbsent(name, method);
    if (owner != null && !owner.equals(method)) {
      report.report(Message.SINGLE_FLIGHT_NAME_DUPLICATE, method, annotation, name, describe(owner));
      return Optional.empty();
    }
    return Optional.of(new SingleFlightMethod(method, type, name, atMost.toString(), atLeast.toString(), onBusy,
        waitTimeout.toString(), returnsOptional));
  }

  /** The explicit name, or {@code <Interface>.<method>}; null (reported) if invalid. */
  private static String name(ExecutableElement method, AnnotationMirror annotation, ValidationReport report) {
    Optional<AnnotationValue> explicit = Annotations.explicitValue(annotation, "name");
    if (explicit.isEmpty()) {
      Element enclosing = method.getEnclosingElement();
      String owner = enclosing instanceof TypeElement type ? type.getSimpleName().toString() : enclosing.toString();
      return owner + "." + method.getSimpleName();
    }
    String name = explicit.get().getValue().toString();
    if (name.isEmpty() || name.length() > MAX_NAME_LENGTH || !name.strip().equals(name)) {
      report.report(Message.SINGLE_FLIGHT_NAME_INVALID, method, annotation, explicit.get(), name);
      return null;
    }
    return name;
  }

  /** The parsed duration, or null (reported). */
  private static Duration duration(ExecutableElement method, AnnotationMirror annotation, String member,
                                   boolean positive, ValidationReport report) {
    AnnotationValue value = Annotations.value(annotation, member);
    String text = (String) value.getValue();
    try {
      // The runtime keeps durations in milliseconds; below one a lease would be over before it began.
      Duration duration = Duration.parse(text);
      long millis = duration.toMillis();
      if (positive ? millis > 0 : !duration.isNegative()) {
        return duration;
      }
    } catch (DateTimeParseException | ArithmeticException notIsoOrTooLong) {
      // reported below
    }
    report.report(Message.SINGLE_FLIGHT_DURATION_INVALID, method, annotation, value, member, text,
        positive ? "a positive (at least one millisecond)" : "a zero or positive");
    return null;
  }

  private static boolean isOptional(TypeMirror type) {
    return type instanceof DeclaredType declared
        && ((TypeElement) declared.asElement()).getQualifiedName().contentEquals("java.util.Optional")
        && declared.getTypeArguments().size() == 1;
  }

  private static String boxedName(TypeMirror primitive) {
    return switch (primitive.getKind()) {
      case INT -> "Integer";
      case CHAR -> "Character";
      default -> {
        String name = primitive.getKind().name().toLowerCase(java.util.Locale.ROOT);
        yield Character.toUpperCase(name.charAt(0)) + name.substring(1);
      }
    };
  }

  private static String describe(ExecutableElement method) {
    Element enclosing = method.getEnclosingElement();
    String owner = enclosing instanceof TypeElement type ? type.getQualifiedName().toString() : enclosing.toString();
    return owner + "." + method.getSimpleName() + "()";
  }
}
