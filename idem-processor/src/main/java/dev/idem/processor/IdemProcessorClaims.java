package dev.idem.processor;

import com.google.auto.service.AutoService;
import java.util.Set;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.Processor;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.TypeElement;

/**
 * Claims idem's own annotations, and the {@code @Generated} on the classes idem writes, so that a build with
 * {@code -Xlint:all -Werror} does not fail on "No processor claimed any of these annotations". It does nothing else.
 *
 * <p>A processor of its own because {@link IdemProcessor} supports every type ("*", to see interfaces that only
 * inherit annotated methods), and a "*" processor that claimed would claim every annotation and hide them from
 * the processors after it. Registered after {@link IdemProcessor} (service files list processors in name order),
 * so that idem has seen its annotations before they are claimed.
 */
@AutoService(Processor.class)
public final class IdemProcessorClaims extends AbstractProcessor {

  @Override
  public Set<String> getSupportedAnnotationTypes() {
    return Set.of(Annotations.IDEMPOTENT_COMMAND, Annotations.IDEMPOTENCY_KEY, Annotations.STATE_TRANSITION,
        Annotations.SINGLE_FLIGHT, Annotations.OUTBOX_EVENT,
        Annotations.ENTITY_ID, Annotations.EXPECTED_VERSION, SourceFileGenerator.GENERATED_ANNOTATION);
  }

  @Override
  public SourceVersion getSupportedSourceVersion() {
    return SourceVersion.latestSupported();
  }

  @Override
  public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
    return true;
  }
}
