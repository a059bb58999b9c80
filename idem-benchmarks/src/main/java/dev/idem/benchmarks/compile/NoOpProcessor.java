package dev.idem.benchmarks.compile;

import java.util.Set;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.TypeElement;

/**
 * A processor for idem's annotations that does nothing: what javac's annotation processing costs by itself
 * (discovering the processor, collecting annotated elements, the final round), before any processor's own work.
 * Named on the command line only, never registered as a service.
 */
public final class NoOpProcessor extends AbstractProcessor {

  @Override
  public Set<String> getSupportedAnnotationTypes() {
    return Set.of("dev.idem.IdempotentCommand", "dev.idem.IdempotencyKey");
  }

  @Override
  public SourceVersion getSupportedSourceVersion() {
    return SourceVersion.latestSupported();
  }

  @Override
  public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
    return false;
  }
}
