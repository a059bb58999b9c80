package dev.idem.processor;

import com.palantir.javapoet.ClassName;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.NestingKind;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.ExecutableType;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/** Checks a service interface as a whole and builds its {@link ServiceModel} when it is clean. */
final class ServiceValidator {

  private final Elements elements;
  private final Types types;
  private final ProcessingEnvironment env;
  private final CommandValidator commands;
  /** Created at the first transition or single-flight method: see {@link #transitions()}. */
  private TransitionValidator transitions;
  private SingleFlightValidator singleFlights;
  /** Object's overridable methods, read once: a class-file type whose symbols javac keeps across rounds. */
  private List<ExecutableElement> objectMethods;

  ServiceValidator(ProcessingEnvironment env, ScopeRegistry scopes) {
    this.elements = env.getElementUtils();
    this.types = env.getTypeUtils();
    this.env = env;
    this.commands = new CommandValidator(env, scopes);
  }

  /**
   * The transition validator (and its entity reader), created when first needed: the processor is loaded cold, in
   * a new class loader per compilation, and a build whose services have no transitions need not read, verify and
   * initialise those classes in every compile.
   */
  private TransitionValidator transitions() {
    if (transitions == null) {
      transitions = new TransitionValidator(env);
    }
    return transitions;
  }

  private SingleFlightValidator singleFlights() {
    if (singleFlights == null) {
      singleFlights = new SingleFlightValidator();
    }
    return singleFlights;
  }

  Optional<ServiceModel> validate(TypeElement service, ValidationReport report) {
    Optional<String> unreachable = unreachableBecause(service);
    if (unreachable.isPresent()) {
      // Generating anyway would only move the problem into javac errors inside the generated file.
      report.report(Message.SERVICE_NOT_ACCESSIBLE, service, service.getQualifiedName(),
          generatedName(service).canonicalName(), unreachable.get());
      return Optional.empty();
    }
    reportUnimplementable(service, report);
    if (!service.getTypeParameters().isEmpty()) {
      if (declaresAnnotatedMethods(service)) {
        report.report(Message.GENERIC_INTERFACE, service, service.getQualifiedName(), service.getSimpleName());
      } else {
        // Merely extending a service is no request for an implementation: a warning, not a broken build.
        report.report(Message.GENERIC_INHERITING_INTERFACE, service, service.getSimpleName(),
            service.getSimpleName(), service.getSimpleName(), service.getSimpleName());
      }
      return Optional.empty();
    }
    DeclaredType serviceType = (DeclaredType) service.asType();
    List<MethodModel> methods = new ArrayList<>();
    List<ReconcilerValidator.Candidate> reconcilers = new ArrayList<>();
    for (ExecutableElement method : implementableMethods(service)) {
      ExecutableType type = (ExecutableType) types.asMemberOf(serviceType, method);
      if (reportUnnameableTypes(service, method, type, report)) {
        continue;
      }
      Optional<AnnotationMirror> command = Annotations.find(method, Annotations.IDEMPOTENT_COMMAND);
      Optional<AnnotationMirror> transition = Annotations.find(method, Annotations.STATE_TRANSITION);
      Optional<AnnotationMirror> singleFlight = Annotations.find(method, Annotations.SINGLE_FLIGHT);
      Optional<AnnotationMirror> reconciles = Annotations.find(method, Annotations.RECONCILES);
      if (reconciles.isPresent()) {
        Optional<AnnotationMirror> other = command.or(() -> transition).or(() -> singleFlight);
        if (other.isPresent()) {
          String name = ((TypeElement) other.get().getAnnotationType().asElement()).getSimpleName().toString();
          report.report(Message.RECONCILER_AND_OTHER_ANNOTATION, method, reconciles.get(), method.getSimpleName(),
              name);
          continue;
        }
        reportStrayKeys(method, report);
        reportStrayTransitionParameters(method, report);
        reconcilers.add(new ReconcilerValidator.Candidate(method, type, reconciles.get()));
        methods.add(new ForwardedMethod(method, type)); // the generated class forwards it to the delegate
        continue;
      }
      if (singleFlight.isPresent()) {
        if (command.isPresent() || transition.isPresent()) {
          report.report(Message.SINGLE_FLIGHT_AND_COMMAND, method, singleFlight.get(), method.getSimpleName(),
              command.isPresent() ? "IdempotentCommand" : "StateTransition");
          continue;
        }
        reportStrayKeys(method, report);
        reportStrayTransitionParameters(method, report);
        addIfPresent(singleFlights().validate(method, type, singleFlight.get(), report), methods);
        continue;
      }
      if (transition.isPresent()) {
        if (command.isPresent()) {
          report.report(Message.TRANSITION_AND_COMMAND, method, command.get(), method.getSimpleName());
          continue;
        }
        reportStrayKeys(method, report);
        addIfPresent(transitions().validate(service, method, type, transition.get(), report), methods);
        continue;
      }
      reportStrayTransitionParameters(method, report);
      if (command.isPresent()) {
        addIfPresent(commands.validate(method, type, command.get(), report), methods);
      } else {
        reportStrayKeys(method, report);
        methods.add(new ForwardedMethod(method, type));
      }
    }
    if (!reconcilers.isEmpty()) {
      methods = new ReconcilerValidator(types, elements).attach(service, methods, reconcilers, report);
    }
    if (!report.isClean()) {
      return Optional.empty();
    }
    ServiceModel model = new ServiceModel(service, serviceType, generatedName(service), methods);
    reportUnreachedStates(model, report);
    return Optional.of(model);
  }

  /**
   * {@code model.ifPresent(methods::add)} without the method reference: every lambda or method reference is a call
   * site that the processor, loaded cold in a new class loader by each compilation, links anew (LambdaMetafactory
   * spins a class for it) in every compile. On the common path plain code is cheaper.
   */
  private static void addIfPresent(Optional<? extends MethodModel> model, List<MethodModel> methods) {
    if (model.isPresent()) {
      methods.add(model.get());
    }
  }

  private static boolean declaresAnnotatedMethods(TypeElement service) {
    return ElementFilter.methodsIn(service.getEnclosedElements()).stream()
        .anyMatch(method -> Annotations.find(method, Annotations.IDEMPOTENT_COMMAND).isPresent()
            || Annotations.find(method, Annotations.STATE_TRANSITION).isPresent()
            || Annotations.find(method, Annotations.SINGLE_FLIGHT).isPresent()
            || Annotations.find(method, Annotations.RECONCILES).isPresent());
  }

  /**
   * Warns about enum states that no transition of this interface starts from or leads to. The check sees one
   * interface only (the processor is isolating), so the warning says so.
   */
  private static void reportUnreachedStates(ServiceModel model, ValidationReport report) {
    // A loop, not forEach with a lambda: that call site would be linked in every cold compile, transitions or not.
    for (List<TransitionMethod> group : model.transitionsByEntity().values()) {
      Set<String> used = new HashSet<>();
      for (TransitionMethod transition : group) {
        used.addAll(transition.from());
        used.add(transition.to());
      }
      TransitionMethod first = group.get(0);
      for (String state : first.states()) {
        if (!used.contains(state)) {
          report.report(Message.TRANSITION_STATE_UNREACHED, model.type(), model.type().getSimpleName(), state,
              first.entity().getSimpleName() + "." + first.stateField(), model.type().getSimpleName(),
              first.entity().getSimpleName());
        }
      }
    }
  }

  private void reportStrayTransitionParameters(ExecutableElement method, ValidationReport report) {
    for (VariableElement parameter : method.getParameters()) {
      for (String annotation : List.of(Annotations.ENTITY_ID, Annotations.EXPECTED_VERSION)) {
        Optional<AnnotationMirror> mirror = Annotations.find(parameter, annotation);
        if (mirror.isPresent()) {
          String simpleName = annotation.substring(annotation.lastIndexOf('.') + 1);
          report.report(Message.TRANSITION_PARAMETER_WITHOUT_TRANSITION, parameter, mirror.get(), simpleName,
              parameter.getSimpleName(), method.getSimpleName(), simpleName);
        }
      }
    }
  }

  /**
   * Why the generated class, a top-level class in the interface's package, could not implement the interface:
   * the interface or a type around it is private, or it is declared inside a method.
   */
  private static Optional<String> unreachableBecause(TypeElement service) {
    for (Element current = service; current instanceof TypeElement type; current = current.getEnclosingElement()) {
      if (type.getNestingKind() == NestingKind.LOCAL || type.getNestingKind() == NestingKind.ANONYMOUS) {
        return Optional.of(type.getSimpleName() + " is declared inside a method");
      }
      if (type.getModifiers().contains(Modifier.PRIVATE)) {
        return Optional.of(type.getQualifiedName() + " is private");
      }
    }
    return Optional.empty();
  }

  /** Reports a type in the method's signature that the generated class cannot name; true if there is one. */
  private boolean reportUnnameableTypes(TypeElement service, ExecutableElement method, ExecutableType type,
                                        ValidationReport report) {
    List<TypeMirror> mentioned = new ArrayList<>(type.getParameterTypes());
    mentioned.add(type.getReturnType());
    mentioned.addAll(type.getThrownTypes());
    Set<TypeElement> seen = new HashSet<>();
    for (TypeMirror typeMirror : mentioned) {
      for (TypeElement element : TypeMirrors.declaredElements(typeMirror)) {
        if (!seen.add(element)) {
          continue;
        }
        Optional<String> unreachable = unreachableBecause(element);
        if (unreachable.isPresent()) {
          report.report(Message.SIGNATURE_TYPE_NOT_ACCESSIBLE, method, method.getSimpleName(),
              element.getQualifiedName(), generatedName(service).canonicalName(), unreachable.get());
          return true;
        }
      }
    }
    return false;
  }

  /** {@code com.acme.Payments} → {@code com.acme.Payments_Idempotent}; {@code Outer.Inner} → {@code Outer_Inner_Idempotent}. */
  static ClassName generatedName(TypeElement service) {
    return generatedName(service, "_Idempotent");
  }

  static ClassName generatedName(TypeElement service, String suffix) {
    ClassName name = ClassName.get(service);
    return ClassName.get(name.packageName(), String.join("_", name.simpleNames()) + suffix);
  }

  /**
   * Static and private methods of the interface are not implemented by the generated class, so idem annotations on
   * them have no effect: an error, reported with the interface so that it is not generated half-checked. Inherited
   * ones are their own interface's problem.
   */
  private void reportUnimplementable(TypeElement service, ValidationReport report) {
    for (ExecutableElement method : ElementFilter.methodsIn(service.getEnclosedElements())) {
      if (Misplaced.isImplementableInterfaceMethod(method)) {
        continue;
      }
      boolean annotated = false;
      for (String annotationName : List.of(Annotations.IDEMPOTENT_COMMAND, Annotations.STATE_TRANSITION,
          Annotations.SINGLE_FLIGHT, Annotations.RECONCILES)) {
        Optional<AnnotationMirror> annotation = Annotations.find(method, annotationName);
        if (annotation.isPresent()) {
          Misplaced.report(method, annotation.get(), annotationName, report);
          annotated = true;
        }
      }
      if (!annotated) {
        reportStrayKeys(method, report);
      }
    }
  }

  private void reportStrayKeys(ExecutableElement method, ValidationReport report) {
    for (VariableElement parameter : method.getParameters()) {
      Optional<AnnotationMirror> key = Annotations.find(parameter, Annotations.IDEMPOTENCY_KEY);
      if (key.isPresent()) {
        report.report(Message.KEY_WITHOUT_COMMAND, parameter, key.get(), parameter.getSimpleName(),
            method.getSimpleName());
      }
    }
  }

  /**
   * The methods the generated class must implement, in a stable order: the interface's own in declaration order,
   * then those inherited from super-interfaces, depth first, each once. Static and private methods are skipped,
   * as are those of {@code Object}.
   */
  private List<ExecutableElement> implementableMethods(TypeElement service) {
    List<ExecutableElement> result = new ArrayList<>();
    collect(service, service, result);
    return result;
  }

  private void collect(TypeElement service, TypeElement current, List<ExecutableElement> result) {
    for (ExecutableElement method : ElementFilter.methodsIn(current.getEnclosedElements())) {
      if (method.getModifiers().contains(Modifier.STATIC) || method.getModifiers().contains(Modifier.PRIVATE)) {
        continue;
      }
      boolean hidden = false;
      for (ExecutableElement existing : result) {
        if (existing.getSimpleName().equals(method.getSimpleName()) && elements.overrides(existing, method, service)) {
          hidden = true;
          break;
        }
      }
      if (!hidden && !isObjectMethod(method)) {
        result.add(method);
      }
    }
    for (TypeMirror superInterface : current.getInterfaces()) {
      collect(service, (TypeElement) types.asElement(superInterface), result);
    }
  }

  /** An interface may redeclare equals, hashCode or toString; the generated class inherits them from Object. */
  private boolean isObjectMethod(ExecutableElement method) {
    if (objectMethods == null) {
      List<ExecutableElement> overridable = new ArrayList<>();
      for (ExecutableElement objectMethod
          : ElementFilter.methodsIn(elements.getTypeElement("java.lang.Object").getEnclosedElements())) {
        if (!objectMethod.getModifiers().contains(Modifier.FINAL)) {
          overridable.add(objectMethod);
        }
      }
      objectMethods = List.copyOf(overridable);
    }
    for (ExecutableElement objectMethod : objectMethods) {
      if (objectMethod.getSimpleName().equals(method.getSimpleName())
          && elements.overrides(method, objectMethod, (TypeElement) method.getEnclosingElement())) {
        return true;
      }
    }
    return false;
  }
}
