package dev.idem.processor;

import com.google.auto.service.AutoService;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.ProcessingEnvironment;
import javax.annotation.processing.Processor;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;

/**
 * Generates {@code <Service>_Idempotent} for every interface with idem-annotated methods.
 *
 * <p>Each round: find the interfaces, validate each into a {@link ValidationReport} and a {@link ServiceModel},
 * print the report once, and generate only from a clean model. An interface that still refers to types other
 * processors have yet to generate is retried in the next round.
 */
@AutoService(Processor.class)
public final class IdemProcessor extends AbstractProcessor {

  /** The annotations whose presence makes an interface a service that idem implements. */
  private static final List<String> METHOD_ANNOTATIONS =
      List.of(Annotations.IDEMPOTENT_COMMAND, Annotations.STATE_TRANSITION);

  private final Set<String> deferred = new LinkedHashSet<>();
  private final Set<String> processed = new HashSet<>();
  private ServiceValidator validator;
  private ServiceWriter writer;
  private StateDiagramWriter diagrams;

  @Override
  public synchronized void init(ProcessingEnvironment env) {
    super.init(env);
    validator = new ServiceValidator(env, new ScopeRegistry());
    writer = new ServiceWriter(env.getFiler(), env.getMessager(), env.getTypeUtils());
    diagrams = new StateDiagramWriter(env.getFiler(), env.getMessager());
  }

  @Override
  public Set<String> getSupportedAnnotationTypes() {
    return Set.of(Annotations.IDEMPOTENT_COMMAND, Annotations.IDEMPOTENCY_KEY, Annotations.STATE_TRANSITION,
        Annotations.ENTITY_ID, Annotations.EXPECTED_VERSION);
  }

  @Override
  public SourceVersion getSupportedSourceVersion() {
    return SourceVersion.latestSupported();
  }

  @Override
  public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
    Set<TypeElement> services = new LinkedHashSet<>();
    for (String name : deferred) {
      Optional.ofNullable(processingEnv.getElementUtils().getTypeElement(name)).ifPresent(services::add);
    }
    deferred.clear();
    collectServices(round, services);

    List<TypeElement> ordered = new ArrayList<>(services);
    ordered.sort(Comparator.comparing(type -> type.getQualifiedName().toString()));
    for (TypeElement service : ordered) {
      String name = service.getQualifiedName().toString();
      if (processed.contains(name)) {
        continue;
      }
      if (!round.processingOver() && refersToMissingTypes(service)) {
        deferred.add(name);
        continue;
      }
      processed.add(name);
      ValidationReport report = new ValidationReport();
      Optional<ServiceModel> model = validator.validate(service, report);
      report.printTo(processingEnv.getMessager());
      model.ifPresent(writer::generate);
      model.ifPresent(diagrams::write);
    }
    return false;
  }

  /**
   * Adds the interfaces that declare idem-annotated methods, and reports annotations placed where idem cannot
   * generate anything (on a class, a stray key parameter outside an interface). Annotations on static or private
   * methods of an interface are reported by the {@link ServiceValidator} with the interface's other problems, so
   * that such an interface is reported and not generated.
   */
  private void collectServices(RoundEnvironment round, Set<TypeElement> services) {
    for (String annotationName : METHOD_ANNOTATIONS) {
      TypeElement annotation = processingEnv.getElementUtils().getTypeElement(annotationName);
      if (annotation == null) {
        continue;
      }
      for (Element element : round.getElementsAnnotatedWith(annotation)) {
        if (Misplaced.isInterfaceMethod(element)) {
          services.add((TypeElement) element.getEnclosingElement());
        } else {
          ValidationReport report = new ValidationReport();
          Misplaced.report(element, Annotations.find(element, annotationName).orElseThrow(), annotationName, report);
          report.printTo(processingEnv.getMessager());
        }
      }
    }
    TypeElement key = processingEnv.getElementUtils().getTypeElement(Annotations.IDEMPOTENCY_KEY);
    if (key != null) {
      for (Element parameter : round.getElementsAnnotatedWith(key)) {
        Element method = parameter.getEnclosingElement();
        if (Misplaced.isInterfaceMethod(method)) {
          services.add((TypeElement) method.getEnclosingElement()); // the validator reports a key without command
        } else if (Annotations.find(method, Annotations.IDEMPOTENT_COMMAND).isEmpty()) {
          ValidationReport report = new ValidationReport();
          report.report(Message.KEY_WITHOUT_COMMAND, parameter,
              Annotations.find(parameter, Annotations.IDEMPOTENCY_KEY).orElseThrow(),
              parameter.getSimpleName(), method.getSimpleName());
          report.printTo(processingEnv.getMessager());
        }
      }
    }
  }

  /** True while a signature still mentions a type that does not exist yet (another processor may create it). */
  private static boolean refersToMissingTypes(TypeElement service) {
    for (ExecutableElement method : ElementFilter.methodsIn(service.getEnclosedElements())) {
      if (isError(method.getReturnType())) {
        return true;
      }
      for (var parameter : method.getParameters()) {
        if (isError(parameter.asType())) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean isError(TypeMirror type) {
    return type.getKind() == TypeKind.ERROR;
  }
}
