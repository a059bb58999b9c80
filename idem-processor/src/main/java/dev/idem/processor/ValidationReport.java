package dev.idem.processor;

import java.util.ArrayList;
import java.util.List;
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

  private record Item(Message message, String text, Element element, AnnotationMirror annotation,
                      AnnotationValue value) {}

  private final List<Item> items = new ArrayList<>();

  /** Reports on the element itself. */
  void report(Message message, Element element, Object... args) {
    items.add(new Item(message, message.format(args), element, null, null));
  }

  /** Reports on an annotation of the element. */
  void report(Message message, Element element, AnnotationMirror annotation, Object... args) {
    items.add(new Item(message, message.format(args), element, annotation, null));
  }

  /** Reports on one value of an annotation, the most exact position javac offers. */
  void report(Message message, Element element, AnnotationMirror annotation, AnnotationValue value,
              Object... args) {
    items.add(new Item(message, message.format(args), element, annotation, value));
  }

  boolean isClean() {
    return items.stream().noneMatch(item -> item.message().kind() == Diagnostic.Kind.ERROR);
  }

  void printTo(Messager messager) {
    for (Item item : items) {
      if (item.value() != null) {
        messager.printMessage(item.message().kind(), item.text(), item.element(), item.annotation(), item.value());
      } else if (item.annotation() != null) {
        messager.printMessage(item.message().kind(), item.text(), item.element(), item.annotation());
      } else {
        messager.printMessage(item.message().kind(), item.text(), item.element());
      }
    }
  }
}
