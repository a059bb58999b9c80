package dev.idem.processor;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/**
 * The erasures of the JDK types the validators compare against, looked up once: {@code Elements.getTypeElement}
 * resolves a name through every module each time, and the validators ask for the same dozen names for every
 * method (a profile of 1,000 commands showed those lookups as a seventh of the processor's own time). Only
 * {@code java.*} types go here: javac reads them from class files and keeps their symbols across rounds, unlike
 * the symbols of source files, which it renews each round.
 */
final class JdkTypes {

  private final Elements elements;
  private final Types types;
  private final Map<String, Optional<TypeMirror>> erasures = new HashMap<>();

  JdkTypes(Elements elements, Types types) {
    this.elements = elements;
    this.types = types;
  }

  /** The erasure of the named JDK type; empty where the platform lacks it. */
  Optional<TypeMirror> erasure(String qualifiedName) {
    if (!qualifiedName.startsWith("java.")) {
      throw new IllegalArgumentException("not a JDK type: " + qualifiedName);
    }
    return erasures.computeIfAbsent(qualifiedName, name -> {
      TypeElement element = elements.getTypeElement(name);
      return element == null ? Optional.empty() : Optional.of(types.erasure(element.asType()));
    });
  }
}
