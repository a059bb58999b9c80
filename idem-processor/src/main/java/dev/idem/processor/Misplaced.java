package dev.idem.processor;

import java.util.Locale;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.Modifier;

/**
 * Reports an idem method annotation where nothing can be generated for it (a class, a static or private interface
 * method). Shared by the processor, which sees stray annotations outside interfaces, and the service validator,
 * which reports those on static and private methods of an interface together with the interface's other problems
 * (so that the interface is not generated either).
 */
final class Misplaced {

  private Misplaced() {}

  /** True for methods the generated class implements: abstract or default methods of an interface. */
  static boolean isImplementableInterfaceMethod(Element element) {
    return isInterfaceMethod(element)
        && !element.getModifiers().contains(Modifier.STATIC)
        && !element.getModifiers().contains(Modifier.PRIVATE);
  }

  static boolean isInterfaceMethod(Element element) {
    return element.getKind() == ElementKind.METHOD
        && element.getEnclosingElement().getKind() == ElementKind.INTERFACE;
  }

  static void report(Element element, AnnotationMirror annotation, String annotationName, ValidationReport report) {
    String simpleName = annotationName.substring(annotationName.lastIndexOf('.') + 1);
    report.report(Message.NOT_AN_INTERFACE_METHOD, element, annotation, simpleName, describe(element),
        whatItIs(element));
  }

  private static String describe(Element element) {
    return element.getKind() == ElementKind.METHOD
        ? element.getEnclosingElement().getSimpleName() + "." + element.getSimpleName() + "()"
        : element.getSimpleName().toString();
  }

  private static String whatItIs(Element element) {
    if (element.getKind() != ElementKind.METHOD) {
      return "a " + element.getKind().toString().toLowerCase(Locale.ROOT).replace('_', ' ');
    }
    if (element.getModifiers().contains(Modifier.STATIC)) {
      return "a static method";
    }
    if (element.getModifiers().contains(Modifier.PRIVATE)) {
      return "a private method";
    }
    return "a method of " + element.getEnclosingElement().getKind().toString().toLowerCase(Locale.ROOT)
        + " " + element.getEnclosingElement().getSimpleName();
  }
}
