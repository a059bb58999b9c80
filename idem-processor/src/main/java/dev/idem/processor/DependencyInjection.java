package dev.idem.processor;

import com.palantir.javapoet.ClassName;
import java.util.ArrayList;
import java.util.List;
import javax.lang.model.util.Elements;

/**
 * The dependency-injection APIs on the compile class path ({@code jakarta.inject}, {@code javax.inject}), found
 * once per compilation. Generated classes use only those present: a build without any DI library gets a plain
 * constructor and nothing that would not compile, one with Guice 7, Dagger 2 or a CDI container gets an
 * injectable constructor and a qualifier for the delegate.
 */
record DependencyInjection(List<ClassName> injects, List<ClassName> qualifiers) {

  private static final List<String> PACKAGES = List.of("jakarta.inject", "javax.inject");

  DependencyInjection {
    injects = List.copyOf(injects);
    qualifiers = List.copyOf(qualifiers);
  }

  static DependencyInjection onClassPath(Elements elements) {
    List<ClassName> injects = new ArrayList<>();
    List<ClassName> qualifiers = new ArrayList<>();
    for (String packageName : PACKAGES) {
      // Inject and Qualifier ship in the same jar; both are checked so that a partial class path cannot lead to
      // generated code that names a missing type.
      // The package first: javac answers a package from its class path index, but a type it has not loaded yet,
      // found or not, only after parsing and attributing the name as an expression, which the cold processor pays
      // for with milliseconds per compile, and most builds have neither package.
      if (elements.getPackageElement(packageName) != null
          && elements.getTypeElement(packageName + ".Inject") != null
          && elements.getTypeElement(packageName + ".Qualifier") != null) {
        injects.add(ClassName.get(packageName, "Inject"));
        qualifiers.add(ClassName.get(packageName, "Qualifier"));
      }
    }
    return new DependencyInjection(injects, qualifiers);
  }

  boolean available() {
    return !injects.isEmpty();
  }
}
