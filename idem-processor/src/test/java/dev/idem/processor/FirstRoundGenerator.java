package dev.idem.processor;

import static dev.idem.processor.Compilations.contentOf;
import static dev.idem.processor.Compilations.resource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.List;
import java.util.Set;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.TypeElement;

/**
 * Stands for another annotation processor in the same compilation: in the first round it generates the given
 * sources (test resources, written to the Filer as they are), so that idem sees the types they declare only from
 * the second round on.
 */
final class FirstRoundGenerator extends AbstractProcessor {

  private final List<String> resources;
  private boolean done;

  /** @param resources paths of {@code .java} resources, e.g. {@code positive/deferred/generated/X.java} */
  FirstRoundGenerator(String... resources) {
    this.resources = List.of(resources);
  }

  @Override
  public Set<String> getSupportedAnnotationTypes() {
    return Set.of("*");
  }

  @Override
  public SourceVersion getSupportedSourceVersion() {
    return SourceVersion.latestSupported();
  }

  @Override
  public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
    if (done) {
      return false;
    }
    done = true;
    for (String path : resources) {
      String source = contentOf(resource(path));
      String packageName = source.substring("package ".length(), source.indexOf(';'));
      String simpleName = path.substring(path.lastIndexOf('/') + 1, path.length() - ".java".length());
      try (Writer writer = processingEnv.getFiler().createSourceFile(packageName + "." + simpleName).openWriter()) {
        writer.write(source);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return false;
  }
}
