package dev.idem.processor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import javax.annotation.processing.Messager;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.tools.Diagnostic;

/**
 * The problems found in one service interface, collected during validation and printed once, so that a type is
 * either reported or generated, never half of each.
 */
final class ValidationReport {

  private record Item(Message message, Diagnostic.Kind kind, String text, Element element,
                      AnnotationMirror annotation, AnnotationValue value) {}

  /** The name that {@code @SuppressWarnings} takes to silence idem's warnings; "idem:IDEM-nnn" silences one tag. */
  static final String SUPPRESS_ALL = "idem";

  private final List<Item> items = new ArrayList<>();

  /** Reports on the element itself. */
  void report(Message message, Element element, Object... args) {
    items.add(new Item(message, message.kind(), message.format(args), element, null, null));
  }

  /** Reports on the element with a severity the user chose (an option), not the message's own. */
  void reportAs(Diagnostic.Kind kind, Message message, Element element, Object... args) {
    items.add(new Item(message, kind, message.format(args), element, null, null));
  }

  /** Reports on an annotation of the element. */
  void report(Message message, Element element, AnnotationMirror annotation, Object... args) {
    items.add(new Item(message, message.kind(), message.format(args), element, annotation, null));
  }

  /** Reports on one value of an annotation, the most exact position javac offers. */
  void report(Message message, Element element, AnnotationMirror annotation, AnnotationValue value,
              Object... args) {
    items.add(new Item(message, message.kind(), message.format(args), element, annotation, value));
  }

  boolean isClean() {
    for (Item item : items) { // a loop: a lambda here is linked anew by the cold processor in every compile
      if (item.kind() == Diagnostic.Kind.ERROR) {
        return false;
      }
    }
    return true;
  }

  void printTo(Messager messager) {
    for (Item item : items) {
      if (item.kind() != Diagnostic.Kind.ERROR && isSuppressed(item.message(), item.element())) {
        continue;
      }
      if (item.value() != null) {
        messager.printMessage(item.kind(), item.text(), item.element(), item.annotation(), item.value());
      } else if (item.annotation() != null) {
        messager.printMessage(item.kind(), item.text(), item.element(), item.annotation());
      } else {
        messager.printMessage(item.kind(), item.text(), item.element());
      }
    }
  }

  /**
   * Whether {@code @SuppressWarnings("idem")} or {@code @SuppressWarnings("idem:IDEM-120")} on the element or one
   * around it silences the warning, as javac's own lint names do. Errors cannot be suppressed.
   */
  static boolean isSuppressed(Message message, Element element) {
    Set<String> names = Set.of(SUPPRESS_ALL, SUPPRESS_ALL + ":" + message.tag());
    for (Element current = element; current != null; current = current.getEnclosingElement()) {
      SuppressWarnings suppress = current.getAnnotation(SuppressWarnings.class);
      if (suppress != null && Arrays.stream(suppress.value()).anyMatch(names::contains)) {
        return true;
      }
    }
    return false;
  }
}
