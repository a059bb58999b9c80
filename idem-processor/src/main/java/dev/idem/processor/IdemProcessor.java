package dev.idem.processor;

import com.google.auto.service.AutoService;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.ProcessingEnvironment;
import javax.annotation.processing.Processor;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;
import javax.tools.Diagnostic;

/**
 * Generates {@code <Service>_Idempotent} for every interface with idem-annotated methods.
 *
 * <p>Each round: find the interfaces, validate each into a {@link ValidationReport} and a {@link ServiceModel},
 * print the report once, and generate only from a clean model. An interface that still names types other
 * processors have yet to generate ({@link TypeResolution}) is retried in the next round, and reported in the last
 * one if they never appear. A failure of idem itself becomes a tagged error on the interface, not a javac crash.
 */
@AutoService(Processor.class)
public final class IdemProcessor extends AbstractProcessor {

  /** The annotations whose presence makes an interface a service that idem implements. */
  private static final List<String> METHOD_ANNOTATIONS =
      List.of(Annotations.IDEMPOTENT_COMMAND, Annotations.STATE_TRANSITION, Annotations.SINGLE_FLIGHT);

  private final Set<String> deferred = new LinkedHashSet<>();
  private final Set<String> processed = new HashSet<>();
  /** Runs before each service is validated; a test makes it throw to see the processor survive its own bugs. */
  private final Consumer<TypeElement> beforeValidation;
  private ServiceValidator validator;
  private TypeResolution resolution;
  private RuntimeCheck runtime;
  private ServiceWriter writer;
  private CommandsInterfaceWriter commandInterfaces;
  private StateDiagramWriter diagrams;
  private ManifestWriter manifests;
  private PreviousManifests previousManifests;
  private OutboxValidator outboxes;
  private OutboxClassWriter outboxWriter;

  /** The processor as javac loads it (through {@code META-INF/services}). */
  public IdemProcessor() {
    this(null);
  }

  /** @param beforeValidation null for none (no lambda to link in the constructor a build calls) */
  IdemProcessor(Consumer<TypeElement> beforeValidation) {
    this.beforeValidation = beforeValidation;
  }

  @Override
  public synchronized void init(ProcessingEnvironment env) {
    super.init(env);
    resolution = new TypeResolution(env);
    runtime = new RuntimeCheck(env);
    validator = new ServiceValidator(env, new ScopeRegistry());
    writer = new ServiceWriter(env.getFiler(), env.getMessager(), env.getTypeUtils(), env.getElementUtils(),
        DependencyInjection.onClassPath(env.getElementUtils()));
    manifests = new ManifestWriter(env.getFiler(), env.getMessager());
    previousManifests = PreviousManifests.load(env.getOptions(), env.getMessager());
    // The writers and the validator of what most services do not have (transitions, outboxes) are created when
    // first needed: a build loads the processor cold, in a new class loader per compilation, so every class it
    // touches is read, verified and initialised anew in each compile, and these are some of its largest.
  }

  private CommandsInterfaceWriter commandInterfaces() {
    if (commandInterfaces == null) {
      commandInterfaces = new CommandsInterfaceWriter(processingEnv.getFiler(), processingEnv.getMessager(),
          processingEnv.getTypeUtils());
    }
    return commandInterfaces;
  }

  private StateDiagramWriter diagrams() {
    if (diagrams == null) {
      diagrams = new StateDiagramWriter(processingEnv.getFiler(), processingEnv.getMessager());
    }
    return diagrams;
  }

  private OutboxValidator outboxes() {
    if (outboxes == null) {
      outboxes = new OutboxValidator(processingEnv);
    }
    return outboxes;
  }

  private OutboxClassWriter outboxWriter() {
    if (outboxWriter == null) {
      outboxWriter = new OutboxClassWriter(processingEnv.getFiler(), processingEnv.getMessager());
    }
    return outboxWriter;
  }

  /**
   * Whether {@code type} declares an {@code @OutboxEvent} method, which makes it an outbox interface. Here rather
   * than in {@link OutboxValidator}, so that a service without events does not load that class (see {@link #init}).
   */
  private static boolean declaresEvents(TypeElement type) {
    for (ExecutableElement method : ElementFilter.methodsIn(type.getEnclosedElements())) {
      if (Annotations.find(method, Annotations.OUTBOX_EVENT).isPresent()) {
        return true;
      }
    }
    return false;
  }

  @Override
  public Set<String> getSupportedOptions() {
    return Set.of(PreviousManifests.OPTION, PreviousManifests.SEVERITY_OPTION);
  }

  /**
   * Every type, not only idem's annotations: an interface that merely extends an annotated one (perhaps from a
   * library jar) carries no idem annotation itself, and javac would not run idem on a source set made of such
   * interfaces. idem claims nothing, so other processors still see everything.
   */
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
    try {
      processRound(annotations, round);
    } catch (RuntimeException | LinkageError | AssertionError e) {
      // Outside any one service (finding them failed): a tagged error without a position beats a stack trace.
      processingEnv.getMessager().printMessage(Diagnostic.Kind.ERROR,
          Message.PROCESSOR_FAILED.format("this round", e.getClass().getName(), e.getMessage(), origin(e),
              "the annotated interfaces"));
    }
    return false; // claims nothing: it sees every type; IdemProcessorClaims claims idem's own annotations

  }

  private void processRound(Set<? extends TypeElement> annotations, RoundEnvironment round) {
    Set<TypeElement> services = new LinkedHashSet<>();
    for (String name : deferred) {
      TypeElement type = processingEnv.getElementUtils().getTypeElement(name);
      if (type != null) {
        services.add(type);
      }
    }
    deferred.clear();
    collectServices(annotations, round, services);

    // By name, without Comparator.comparing and its lambda (linked anew by the cold processor in every compile).
    TreeMap<String, TypeElement> ordered = new TreeMap<>();
    for (TypeElement service : services) {
      ordered.putIfAbsent(service.getQualifiedName().toString(), service);
    }
    for (Map.Entry<String, TypeElement> entry : ordered.entrySet()) {
      String name = entry.getKey();
      TypeElement service = entry.getValue();
      if (processed.contains(name)) {
        continue;
      }
      try {
        process(service, round.processingOver());
      } catch (RuntimeException | LinkageError | AssertionError e) {
        // A bug in idem must not take javac down with a stack trace that hides the user's other errors: report it
        // on the interface it happened on, tagged, and go on with the next one.
        processed.add(name);
        processingEnv.getMessager().printMessage(Diagnostic.Kind.ERROR,
            Message.PROCESSOR_FAILED.format(name, e.getClass().getName(), e.getMessage(), origin(e),
                service.getSimpleName()),
            service);
      }
    }
    if (round.processingOver()) {
      previousManifests.reportVanishedServices(processingEnv.getElementUtils(), processingEnv.getMessager());
    }
  }

  /**
   * Validates and generates one service, or defers it while it names a type that does not exist yet (another
   * processor may generate it in this round); in the last round such a type is reported, as it never appeared.
   */
  private void process(TypeElement service, boolean lastRound) {
    String name = service.getQualifiedName().toString();
    Optional<TypeResolution.Unresolved> unresolved = resolution.firstUnresolved(service);
    if (unresolved.isPresent() && !lastRound) {
      deferred.add(name);
      return;
    }
    processed.add(name);
    ValidationReport report = new ValidationReport();
    // Without the right runtime nothing can be generated; that is the one thing to fix first (a missing runtime
    // also leaves its own types, such as TransitionResult, unresolved).
    if (!runtime.check(service, report)) {
      report.printTo(processingEnv.getMessager());
      return;
    }
    if (unresolved.isPresent()) {
      TypeResolution.Unresolved missing = unresolved.get();
      report.report(Message.TYPE_NEVER_GENERATED, missing.element(), missing.annotation(), missing.value(),
          name, missing.typeName(), missing.typeName());
      report.printTo(processingEnv.getMessager());
      return;
    }
    if (beforeValidation != null) {
      beforeValidation.accept(service);
    }
    if (declaresEvents(service)) {
      // An outbox interface: <Interface>_Outbox, which only writes events (its validator reports other methods).
      Optional<OutboxInterface> outbox = outboxes().validate(service, report);
      report.printTo(processingEnv.getMessager());
      if (outbox.isPresent() && report.isClean()) {
        outboxWriter().generate(outbox.get());
      }
      return;
    }
    // Plain conditionals rather than Optional.map/filter with method references: each reference is a lambda
    // call site that the cold processor links (a class spun by LambdaMetafactory) in every compilation.
    ServiceModel model = validator.validate(service, report).orElse(null);
    Manifest manifest = model == null ? null : Manifest.of(model);
    if (model != null) {
      previousManifests.check(model, manifest, report);
    }
    report.printTo(processingEnv.getMessager());
    if (model != null && report.isClean()) {
      writer.generate(model);
      if (model.splitsDelegate()) {
        commandInterfaces().generate(model);
      }
      if (!model.transitionsByEntity().isEmpty()) {
        diagrams().write(model);
      }
      manifests.write(model, manifest);
    }
  }

  /** Where idem's code failed: the first frame of the stack trace that is idem's own, else the first frame. */
  private static String origin(Throwable e) {
    StackTraceElement[] frames = e.getStackTrace();
    for (StackTraceElement frame : frames) {
      if (frame.getClassName().startsWith("dev.idem.")) {
        return frame.toString();
      }
    }
    return frames.length == 0 ? "an unknown place" : frames[0].toString();
  }

  /**
   * Adds the interfaces that declare idem-annotated methods, and reports annotations placed where idem cannot
   * generate anything (on a class, a stray key parameter outside an interface). Annotations on static or private
   * methods of an interface are reported by the {@link ServiceValidator} with the interface's other problems, so
   * that such an interface is reported and not generated.
   */
  private void collectServices(Set<? extends TypeElement> present, RoundEnvironment round,
      Set<TypeElement> services) {
    List<String> annotations = new ArrayList<>(METHOD_ANNOTATIONS);
    annotations.add(Annotations.OUTBOX_EVENT);
    Set<? extends Element> annotated = elementsAnnotatedWithAny(present, round, annotations);
    Map<Element, Map<String, AnnotationMirror>> byName = annotationsByName(annotated);
    for (String annotationName : annotations) {
      for (Element element : annotated) {
        Optional<AnnotationMirror> annotation = Optional.ofNullable(byName.get(element).get(annotationName));
        if (annotation.isEmpty()) {
          continue;
        }
        if (Misplaced.isInterfaceMethod(element)) {
          services.add((TypeElement) element.getEnclosingElement());
        } else {
          ValidationReport report = new ValidationReport();
          Misplaced.report(element, annotation.get(), annotationName, report);
          report.printTo(processingEnv.getMessager());
        }
      }
    }
    for (TypeElement type : ElementFilter.typesIn(round.getRootElements())) {
      collectInheritingInterfaces(type, services);
    }
    for (Element parameter : annotated) {
      Optional<AnnotationMirror> key = Optional.ofNullable(byName.get(parameter).get(Annotations.IDEMPOTENCY_KEY));
      if (key.isEmpty()) {
        continue;
      }
      Element method = parameter.getEnclosingElement();
      if (Misplaced.isInterfaceMethod(method)) {
        services.add((TypeElement) method.getEnclosingElement()); // the validator reports a key without command
      } else if (Annotations.find(method, Annotations.IDEMPOTENT_COMMAND).isEmpty()) {
        ValidationReport report = new ValidationReport();
        report.report(Message.KEY_WITHOUT_COMMAND, parameter, key.get(), parameter.getSimpleName(),
            method.getSimpleName());
        report.printTo(processingEnv.getMessager());
      }
    }
  }

  /**
   * Each element's annotations by qualified name, the first of a name as {@link Annotations#find} finds it, each name
   * read once: {@code find} compares names with {@code contentEquals}, which javac answers by converting its UTF-8
   * name to a string, and the loops above ask every element for each of idem's annotations in turn.
   */
  private static Map<Element, Map<String, AnnotationMirror>> annotationsByName(Set<? extends Element> elements) {
    Map<Element, Map<String, AnnotationMirror>> byName = new HashMap<>();
    for (Element element : elements) {
      Map<String, AnnotationMirror> mirrors = new HashMap<>();
      for (AnnotationMirror mirror : element.getAnnotationMirrors()) {
        TypeElement type = (TypeElement) mirror.getAnnotationType().asElement();
        mirrors.putIfAbsent(type.getQualifiedName().toString(), mirror);
      }
      byName.put(element, mirrors);
    }
    return byName;
  }

  /**
   * The round's elements that carry any of {@code annotationNames} or {@code @IdempotencyKey}, in javac's scan
   * order. One scan instead of one per annotation: each {@code getElementsAnnotatedWith} walks every element of
   * every root type (on the 1,000-command benchmark tree the five walks were a tenth of the processor's own time).
   * Filtering the result by one annotation gives what {@code getElementsAnnotatedWith} of that annotation gives:
   * the same walk, and none of idem's annotations is {@code @Inherited}.
   *
   * <p>The annotation types come from {@code present}, the ones javac found on this round's elements (idem
   * supports {@code "*"}, so javac passes all of them), not from {@code Elements.getTypeElement}: an annotation
   * that no element carries needs no scan, and looking up a type javac has not loaded yet costs a parse and an
   * attribution of its name, which the cold processor pays for in every compile.
   */
  private static Set<? extends Element> elementsAnnotatedWithAny(Set<? extends TypeElement> present,
      RoundEnvironment round, List<String> annotationNames) {
    Set<String> names = new HashSet<>(annotationNames);
    names.add(Annotations.IDEMPOTENCY_KEY);
    List<TypeElement> scanned = new ArrayList<>();
    for (TypeElement annotation : present) {
      if (names.contains(annotation.getQualifiedName().toString())) {
        scanned.add(annotation);
      }
    }
    return scanned.isEmpty() ? Set.of() : round.getElementsAnnotatedWithAny(scanned.toArray(new TypeElement[0]));
  }

  /**
   * Adds the interfaces, top-level or nested, that declare no idem annotation themselves but inherit annotated
   * methods: {@code interface CardPayments extends PaymentCommands {}} gets its {@code CardPayments_Idempotent}
   * like an interface that adds a command of its own.
   */
  private void collectInheritingInterfaces(TypeElement type, Set<TypeElement> services) {
    if (type.getKind() == ElementKind.INTERFACE && !services.contains(type)
        && anyDeclaresOrInheritsAnnotatedMethods(type.getInterfaces())) {
      services.add(type);
    }
    for (TypeElement nested : ElementFilter.typesIn(type.getEnclosedElements())) {
      collectInheritingInterfaces(nested, services);
    }
  }

  private boolean declaresOrInheritsAnnotatedMethods(TypeMirror interfaceType) {
    Element element = processingEnv.getTypeUtils().asElement(interfaceType);
    if (!(element instanceof TypeElement type)) {
      return false;
    }
    for (ExecutableElement method : ElementFilter.methodsIn(type.getEnclosedElements())) {
      for (String annotation : METHOD_ANNOTATIONS) {
        if (Annotations.find(method, annotation).isPresent()) {
          return true;
        }
      }
    }
    return anyDeclaresOrInheritsAnnotatedMethods(type.getInterfaces());
  }

  /** A loop rather than a stream with a method reference, a lambda call site the cold processor would link. */
  private boolean anyDeclaresOrInheritsAnnotatedMethods(List<? extends TypeMirror> interfaceTypes) {
    for (TypeMirror interfaceType : interfaceTypes) {
      if (declaresOrInheritsAnnotatedMethods(interfaceType)) {
        return true;
      }
    }
    return false;
  }
}
