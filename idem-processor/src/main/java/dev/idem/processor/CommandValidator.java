package dev.idem.processor;

import dev.idem.InFlight;
import dev.idem.KeyTime;
import dev.idem.Mode;
import dev.idem.Store;
import dev.idem.processor.CodecTypeReader.Problem;
import dev.idem.processor.CommandMethod.KeyPart;
import dev.idem.processor.CommandMethod.ReplayedFailure;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.NestingKind;
import javax.lang.model.element.PackageElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.ExecutableType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/** Checks one {@code @IdempotentCommand} method and turns it into a {@link CommandMethod}. */
final class CommandValidator {

  private static final Pattern ACCESSOR_PATH =
      Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*");
  private static final Pattern SCOPE = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

  /**
   * Return types whose value is a handle on something live, not data: storing it and handing it to a retry later
   * cannot work. Checked in order, so the more specific description wins.
   */
  private static final Map<String, String> NOT_STORABLE = orderedMap(
      "java.util.stream.BaseStream", "a stream",
      "java.util.Iterator", "an iterator",
      "java.util.Spliterator", "a spliterator",
      "java.io.InputStream", "an I/O stream",
      "java.io.OutputStream", "an I/O stream",
      "java.io.Reader", "a reader",
      "java.io.Writer", "a writer",
      "java.util.concurrent.Future", "a future (make the command synchronous and return its result)",
      "java.util.concurrent.CompletionStage", "a future (make the command synchronous and return its result)",
      "java.lang.AutoCloseable", "a resource that must be closed",
      "java.lang.Thread", "a thread");

  private final Elements elements;
  private final Types types;
  private final ScopeRegistry scopes;
  private final BatchValidator batches;
  private final CodecTypeReader codec;
  private final JdkTypes jdk;

  CommandValidator(ProcessingEnvironment env, ScopeRegistry scopes) {
    this.elements = env.getElementUtils();
    this.types = env.getTypeUtils();
    this.jdk = new JdkTypes(elements, types);
    this.codec = new CodecTypeReader(elements, types);
    this.scopes = scopes;
    this.batches = new BatchValidator(env);
  }

  /** @return the method as a {@link CommandMethod} or, if it takes a batch of messages, a {@link BatchMethod} */
  Optional<MethodModel> validate(ExecutableElement method, ExecutableType type, AnnotationMirror command,
                                 ValidationReport report) {
    boolean valid = true;
    AnnotationValues values = AnnotationValues.of(command); // its members' names read once, not per question
    BatchValidator batch = batches.forMethod();
    if (!method.getTypeParameters().isEmpty()) {
      report.report(Message.GENERIC_METHOD, method, method.getSimpleName());
      valid = false;
    }

    String retention = values.string("retention");
    valid &= checkDuration(method, values, "retention", report);
    String window = values.string("window");
    String identity = values.string("identity");
    boolean windowed = !window.isEmpty();
    if (windowed) {
      valid &= checkDuration(method, values, "window", report);
      Optional<? extends AnnotationValue> explicitRetention = values.explicit("retention");
      if (explicitRetention.isPresent()) {
        report.report(Message.WINDOW_WITH_RETENTION, method, command, explicitRetention.get(),
            method.getSimpleName());
        valid = false;
      }
      retention = window;
    } else if (!identity.isEmpty()) {
      report.report(Message.IDENTITY_WITHOUT_WINDOW, method, command, values.value("identity"),
          method.getSimpleName(), identity);
      valid = false;
    }
    valid &= checkDuration(method, values, "lease", report);
    valid &= checkDuration(method, values, "waitTimeout", report);

    Mode mode = Mode.valueOf(values.enumConstant("mode"));
    InFlight onInFlight = InFlight.valueOf(values.enumConstant("onInFlight"));
    String onExpiredLease = values.enumConstant("onExpiredLease");
    String onUndeclaredFailure = values.enumConstant("onUndeclaredFailure");
    if (mode != Mode.CLAIM) {
      for (String policy : List.of("onExpiredLease", "onUndeclaredFailure")) {
        Optional<? extends AnnotationValue> explicit = values.explicit(policy);
        if (explicit.isPresent()) {
          report.report(Message.CLAIM_POLICY_WITHOUT_CLAIM, method, command, explicit.get(), method.getSimpleName(),
              policy, policy);
          valid = false;
        }
      }
    }
    List<ReplayedFailure> replayOn = new ArrayList<>();
    @SuppressWarnings("unchecked")
    List<? extends AnnotationValue> listed =
        (List<? extends AnnotationValue>) values.value("replayOn").getValue();
    for (AnnotationValue entry : listed) {
      if (!(entry.getValue() instanceof DeclaredType exception)) {
        continue; // an unresolvable class: javac reports it
      }
      Optional<ReplayedFailure> failure = replayedFailure(method, type, command, entry, exception, report);
      valid &= failure.isPresent();
      if (failure.isPresent()) { // no method reference: a lambda call site the cold processor links per compile
        replayOn.add(failure.get());
      }
    }

    String scope = scopeOf(method, values, report);
    valid &= scope != null;

    TypeMirror returnType = type.getReturnType();
    TypeMirror storedType = returnType;
    if (CommandMethod.isResultWrapper(returnType)) {
      storedType = wrappedResult(method, (DeclaredType) returnType, report);
      valid &= storedType != null;
    }
    String notStorable = storedType == null ? null : whyNotStorable(storedType);
    CodecTypeReader.Shape resultShape = null;
    if (notStorable != null) {
      report.report(Message.RETURN_TYPE_NOT_STORABLE, method, method.getSimpleName(), storedType, notStorable);
      valid = false;
    } else if (storedType != null && method.getTypeParameters().isEmpty()) { // type variables: IDEM-002
      // IdempotentResult<Void> stores nothing, like a void method.
      TypeMirror codecType = isVoidWrapped(storedType) ? types.getNoType(TypeKind.VOID) : storedType;
      CodecTypeReader.Result result = codec.read(codecType, "result", CodecTypeReader.Use.WRITE_AND_READ);
      if (result.problem() != null) {
        Problem problem = result.problem();
        if (problem.message() == Message.RESULT_NOT_REPLAYABLE) {
          report.report(Message.RESULT_NOT_REPLAYABLE, method, method.getSimpleName(), storedType, problem.path(),
              problem.reason(), problem.fix());
        } else {
          List<Object> arguments = new ArrayList<>(List.of(method.getSimpleName(), storedType));
          arguments.addAll(problem.arguments());
          report.report(problem.message(), method, arguments.toArray());
        }
        valid = false;
      } else {
        resultShape = result.shape();
      }
    }

    List<KeyPart> keyParts = new ArrayList<>();
    int keyAnnotations = 0;
    List<String> payload = new ArrayList<>();
    List<? extends VariableElement> parameters = method.getParameters();
    for (int i = 0; i < parameters.size(); i++) {
      VariableElement parameter = parameters.get(i);
      TypeMirror parameterType = type.getParameterTypes().get(i);
      Optional<AnnotationMirror> key = Annotations.find(parameter, Annotations.IDEMPOTENCY_KEY);
      if (windowed && key.isPresent()) {
        report.report(Message.WINDOW_WITH_KEY, parameter, key.get(), method.getSimpleName(),
            parameter.getSimpleName());
        valid = false;
        continue;
      }
      if (windowed && parameter.getSimpleName().contentEquals(identity)) {
        if (!isSupportedKeyType(parameterType)) {
          report.report(Message.KEY_TYPE_UNSUPPORTED, parameter, parameter.getSimpleName(), parameterType);
          valid = false;
        } else {
          keyParts.add(new KeyPart(identity, parameterType, "", List.of(), List.of()));
        }
        keyAnnotations++;
        continue;
      }
      if (key.isEmpty()) {
        payload.add(parameter.getSimpleName().toString());
        valid &= checkFingerprinted(method, parameter, parameterType, report);
        continue;
      }
      keyAnnotations++;
      Optional<KeyPart> part = keyPart(parameter, parameterType, key.get(), batch, report);
      if (part.isEmpty()) {
        valid = false;
      } else {
        keyParts.add(part.get());
        if (!part.get().isWholeParameter()) {
          payload.add(parameter.getSimpleName().toString()); // the rest of a message is its payload
          valid &= checkFingerprinted(method, parameter, parameterType, report);
        }
      }
    }
    List<String> names = new ArrayList<>(parameters.size()); // a loop: no lambda to link in each cold compile
    for (VariableElement parameter : parameters) {
      names.add(parameter.getSimpleName().toString());
    }
    if (windowed && !names.contains(identity)) {
      report.report(Message.WINDOW_IDENTITY_MISSING, method, command,
          values.explicit("identity").orElse(values.value("window")),
          method.getSimpleName(), window, identity.isEmpty() ? "names no identity parameter"
              : "has no parameter named \"" + identity + "\"",
          names.isEmpty() ? "it has no parameters" : String.join(", ", names));
      valid = false;
    } else if (keyAnnotations == 0 && !windowed) {
      report.report(Message.NO_KEY, method, command, method.getSimpleName());
      valid = false;
    }

    KeyTime keyTime = KeyTime.valueOf(values.enumConstant("keyTime"));
    if (windowed && keyTime != KeyTime.NONE) {
      report.report(Message.WINDOW_WITH_KEY_TIME, method, command, values.value("keyTime"),
          method.getSimpleName());
      valid = false;
    } else if (keyTime != KeyTime.NONE && !keyParts.isEmpty()) {
      valid &= checkKeyTime(method, values, keyTime, keyParts.get(0), report);
    }
    Store store = Store.valueOf(values.enumConstant("store"));
    if (store == Store.REDIS && !batch.isBatch()) {
      valid &= checkRedisOnly(method, values, mode, report);
    }
    Optional<? extends AnnotationValue> lookupFirstValue = values.explicit("lookupFirst");
    boolean lookupFirst = lookupFirstValue.isPresent() && Boolean.TRUE.equals(lookupFirstValue.get().getValue());
    if (lookupFirst && store == Store.REDIS) {
      report.report(Message.LOOKUP_FIRST_REDIS, method, command, lookupFirstValue.get(), method.getSimpleName());
      valid = false;
    }

    if (!valid) {
      return Optional.empty();
    }
    CommandMethod commandMethod = new CommandMethod(method, type, scope, resultShape, retention, keyParts, payload,
        mode,
        values.string("lease"), onInFlight, values.string("waitTimeout"),
        replayOn, keyTime, onExpiredLease, onUndeclaredFailure, store, windowed, lookupFirst, null);
    Optional<MethodModel> model = batch.model(commandMethod, command, report);
    if (model.isEmpty() || !scopes.register(scope, method, command, report)) {
      return Optional.empty();
    }
    return model;
  }

  /** {@code Void} of {@code IdempotentResult<Void>}: nothing is stored, so there is nothing to replay exactly. */
  private static boolean isVoidWrapped(TypeMirror storedType) {
    return storedType.getKind() == TypeKind.DECLARED
        && ((TypeElement) ((DeclaredType) storedType).asElement()).getQualifiedName().contentEquals("java.lang.Void");
  }

  /** The {@code T} of a returned {@code IdempotentResult<T>}, or null (reported) if it is not a concrete type. */
  private static TypeMirror wrappedResult(ExecutableElement method, DeclaredType wrapper, ValidationReport report) {
    if (wrapper.getTypeArguments().isEmpty()) {
      report.report(Message.RESULT_WRAPPER_RAW, method, method.getSimpleName());
      return null;
    }
    TypeMirror wrapped = wrapper.getTypeArguments().get(0);
    boolean concrete = wrapped.getKind() == TypeKind.DECLARED || wrapped.getKind() == TypeKind.ARRAY;
    if (!concrete || CommandMethod.isResultWrapper(wrapped)) {
      report.report(Message.RESULT_WRAPPER_ARGUMENT, method, method.getSimpleName(), wrapper);
      return null;
    }
    return wrapped;
  }

  /**
   * A payload value is fingerprinted as the codec writes it, so state the codec cannot see would let a changed
   * value under the same key replay the first result.
   */
  private boolean checkFingerprinted(ExecutableElement method, VariableElement parameter, TypeMirror parameterType,
                                     ValidationReport report) {
    String name = parameter.getSimpleName().toString();
    Optional<Problem> problem = codec.writeProblem(parameterType, name);
    if (problem.isPresent()) {
      Problem p = problem.get();
      report.report(Message.PAYLOAD_NOT_FINGERPRINTED, parameter, name, method.getSimpleName(), p.path(), p.reason(),
          p.fix());
    }
    return problem.isEmpty();
  }

  /**
   * A Redis-only command must not need the database: no joined transaction (so CLAIM), no parked outcome, no day
   * partitions. Each error sits on the value that asks for the database.
   */
  private static boolean checkRedisOnly(ExecutableElement method, AnnotationValues values, Mode mode,
                                        ValidationReport report) {
    boolean valid = true;
    AnnotationValue storeValue = values.value("store");
    if (mode != Mode.CLAIM) {
      report.report(Message.STORE_REDIS_NOT_CLAIM, method, values.mirror(),
          values.explicit("mode").orElse(storeValue), method.getSimpleName());
      valid = false;
    }
    for (String policy : List.of("onExpiredLease", "onUndeclaredFailure")) {
      if (values.enumConstant(policy).equals("PARK")) {
        report.report(Message.STORE_REDIS_PARKING, method, values.mirror(), values.value(policy),
            method.getSimpleName(), policy, policy);
        valid = false;
      }
    }
    Optional<? extends AnnotationValue> keyTime = values.explicit("keyTime");
    if (keyTime.isPresent() && !values.enumConstant("keyTime").equals("NONE")) {
      report.report(Message.STORE_REDIS_KEY_TIME, method, values.mirror(), keyTime.get(), method.getSimpleName());
      valid = false;
    }
    return valid;
  }

  /**
   * A {@code replayOn} type the delegate can throw and the generated code can recreate: the accessible constructor
   * with the most parameters among those whose every parameter has an accessor of the same name and type.
   */
  private Optional<ReplayedFailure> replayedFailure(ExecutableElement method, ExecutableType type,
      AnnotationMirror command, AnnotationValue entry, DeclaredType exception, ValidationReport report) {
    boolean unchecked = isSubtypeOf(exception, "java.lang.RuntimeException") || isSubtypeOf(exception, "java.lang.Error");
    if (!unchecked && type.getThrownTypes().stream().noneMatch(thrown -> types.isAssignable(exception, thrown))) {
      report.report(Message.REPLAY_ON_NOT_THROWN, method, command, entry, exception, method.getSimpleName());
      return Optional.empty();
    }
    TypeElement element = (TypeElement) exception.asElement();
    PackageElement generatedPackage = elements.getPackageOf(method);
    String problem = null;
    if (element.getModifiers().contains(Modifier.ABSTRACT)) {
      problem = "it is abstract";
    } else if (element.getNestingKind() == NestingKind.MEMBER && !element.getModifiers().contains(Modifier.STATIC)) {
      problem = "it is an inner class (declare it static)";
    } else if (!isAccessible(element, generatedPackage)) {
      problem = "it is not public";
    } else {
      List<ReplayedFailure> candidates = new ArrayList<>();
      Map<ReplayedFailure, ExecutableElement> constructors = new java.util.IdentityHashMap<>();
      for (ExecutableElement constructor : ElementFilter.constructorsIn(element.getEnclosedElements())) {
        if (!isAccessible(constructor, generatedPackage)) {
          continue;
        }
        ExecutableType constructorType = (ExecutableType) types.asMemberOf(exception, constructor);
        ReplayedFailure candidate = recreatableBy(exception, constructor, constructorType, generatedPackage);
        if (candidate != null) {
          candidates.add(candidate);
          constructors.put(candidate, constructor);
        }
      }
      // The most values win, among constructors whose every argument reads back exactly; (String message,
      // Throwable cause) loses to (String message), as a cause is no data.
      candidates.sort(Comparator.comparingInt((ReplayedFailure candidate) -> candidate.accessors().size()).reversed());
      Problem firstProblem = null;
      for (ReplayedFailure candidate : candidates) {
        Problem argumentProblem = argumentProblem(candidate);
        if (argumentProblem == null) {
          Optional<TypeElement> overrider = messageOverriddenFor(candidate, element);
          if (overrider.isPresent()) {
            String parameter = constructors.get(candidate).getParameters()
                .get(candidate.accessors().indexOf("getMessage")).getSimpleName().toString();
            report.report(Message.REPLAY_ON_MESSAGE_OVERRIDDEN, method, command, entry, exception,
                overrider.get().getQualifiedName(), parameter, parameter);
            return Optional.empty();
          }
          return Optional.of(candidate);
        }
        firstProblem = firstProblem == null ? argumentProblem : firstProblem;
      }
      if (firstProblem != null) {
        report.report(Message.REPLAY_ON_ARGUMENT_NOT_REPLAYABLE, method, command, entry, exception,
            firstProblem.path(), firstProblem.reason(), firstProblem.fix());
        return Optional.empty();
      }
      problem = "none of its public constructors has parameters that each match a public accessor x() or getX() of"
          + " the same name and type (generic parameter types cannot be stored)";
    }
    report.report(Message.REPLAY_ON_NOT_RECREATABLE, method, command, entry, exception, problem);
    return Optional.empty();
  }

  /**
   * The class (the exception or a superclass below Throwable) whose override of {@code getMessage()} the candidate
   * would capture as a constructor argument: the constructor passes it on to Throwable, and the override decorates
   * it again on the recreated exception.
   */
  private Optional<TypeElement> messageOverriddenFor(ReplayedFailure candidate, TypeElement exception) {
    if (!candidate.accessors().contains("getMessage")) {
      return Optional.empty();
    }
    return ElementFilter.methodsIn(elements.getAllMembers(exception)).stream()
        .filter(m -> m.getSimpleName().contentEquals("getMessage") && m.getParameters().isEmpty())
        .map(m -> (TypeElement) m.getEnclosingElement())
        .filter(owner -> !owner.getQualifiedName().contentEquals("java.lang.Throwable"))
        .findFirst();
  }

  /**
   * The runtime reads each stored constructor argument back by its class alone, so an argument must be a type the
   * codec reads back exactly without the sealed subtypes or constructor names a result type can carry.
   */
  private Problem argumentProblem(ReplayedFailure failure) {
    for (int i = 0; i < failure.parameterTypes().size(); i++) {
      TypeMirror argument = failure.parameterTypes().get(i);
      String path = ((DeclaredType) failure.type()).asElement().getSimpleName() + "." + failure.accessors().get(i)
          + "()";
      CodecTypeReader.Result read = codec.read(argument, path, CodecTypeReader.Use.WRITE_AND_READ);
      if (read.problem() != null) {
        return read.problem();
      }
      if (!read.shape().families().isEmpty() || !read.shape().creators().isEmpty()) {
        return new Problem(path, "has type " + argument + ", which is read back by its class alone, without the"
            + " sealed subtypes or constructor names a result can carry", "pass a record, enum or value type");
      }
    }
    return null;
  }

  private ReplayedFailure recreatableBy(DeclaredType exception, ExecutableElement constructor,
      ExecutableType constructorType, PackageElement generatedPackage) {
    List<String> accessors = new ArrayList<>();
    List<? extends VariableElement> parameters = constructor.getParameters();
    for (int i = 0; i < parameters.size(); i++) {
      TypeMirror parameterType = constructorType.getParameterTypes().get(i);
      if (!isPlain(parameterType)) {
        return null;
      }
      Optional<ExecutableElement> accessor = findAccessor(exception, parameters.get(i).getSimpleName().toString());
      if (accessor.isEmpty() || !isAccessible(accessor.get(), generatedPackage)) {
        return null;
      }
      TypeMirror accessorType = ((ExecutableType) types.asMemberOf(exception, accessor.get())).getReturnType();
      if (!types.isAssignable(accessorType, parameterType)) {
        return null;
      }
      accessors.add(accessor.get().getSimpleName().toString());
    }
    return new ReplayedFailure(exception, accessors, List.copyOf(constructorType.getParameterTypes()));
  }

  /** Whether the generated class, in {@code generatedPackage}, may use the element. */
  private boolean isAccessible(Element element, PackageElement generatedPackage) {
    Set<Modifier> modifiers = element.getModifiers();
    return modifiers.contains(Modifier.PUBLIC)
        || (!modifiers.contains(Modifier.PRIVATE) && elements.getPackageOf(element).equals(generatedPackage));
  }

  /** A type whose values read back from JSON by a class literal alone: no type arguments anywhere. */
  private static boolean isPlain(TypeMirror type) {
    if (type.getKind().isPrimitive()) {
      return true;
    }
    if (type.getKind() == TypeKind.ARRAY) {
      return isPlain(((ArrayType) type).getComponentType());
    }
    return type.getKind() == TypeKind.DECLARED && ((DeclaredType) type).getTypeArguments().isEmpty();
  }

  private boolean isSubtypeOf(TypeMirror type, String qualifiedName) {
    // Both supertypes asked for (RuntimeException, Error) are not generic: the erasure is the type itself.
    return jdk.erasure(qualifiedName).filter(supertype -> types.isSubtype(type, supertype)).isPresent();
  }

  private String scopeOf(ExecutableElement method, AnnotationValues values, ValidationReport report) {
    Optional<AnnotationValue> explicit = values.explicit("scope");
    if (explicit.isEmpty() || explicit.get().getValue().toString().isEmpty()) {
      // The package is part of the default, so that a.Payments.pay and b.Payments.pay, compiled apart and sharing
      // one table, never replay each other's results.
      String scope = ((TypeElement) method.getEnclosingElement()).getQualifiedName() + "." + method.getSimpleName();
      if (!SCOPE.matcher(scope).matches()) {
        report.report(Message.SCOPE_DEFAULT_UNUSABLE, method, values.mirror(), scope, scope.length());
        return null;
      }
      return scope;
    }
    String scope = explicit.get().getValue().toString();
    if (!SCOPE.matcher(scope).matches()) {
      report.report(Message.SCOPE_INVALID, method, values.mirror(), explicit.get(), scope);
      return null;
    }
    return scope;
  }

  /** The first key part of a command whose keys carry their time must hold an id of that format. */
  private static boolean checkKeyTime(ExecutableElement method, AnnotationValues values, KeyTime keyTime,
                                      KeyPart first, ValidationReport report) {
    TypeMirror type = first.accessorTypes().isEmpty() ? first.parameterType()
        : first.accessorTypes().get(first.accessorTypes().size() - 1);
    String name = type.toString();
    boolean fits = name.equals("java.lang.String") || (keyTime == KeyTime.UUID_V7 && name.equals("java.util.UUID"));
    if (!fits) {
      report.report(Message.KEY_TIME_TYPE, method, values.mirror(), values.value("keyTime"), keyTime,
          first.displayName(), name, keyTime == KeyTime.UUID_V7 ? "a String or a java.util.UUID" : "a String");
    }
    return fits;
  }

  private static boolean checkDuration(ExecutableElement method, AnnotationValues values, String member,
                                       ValidationReport report) {
    AnnotationValue value = values.value(member);
    String text = (String) value.getValue();
    try {
      // The runtime keeps durations in milliseconds: below one it rejects them, beyond a long it overflows, and
      // either would fail only when the generated class loads.
      if (Duration.parse(text).toMillis() > 0) {
        return true;
      }
    } catch (DateTimeParseException | ArithmeticException notIsoOrTooLong) {
      // reported below
    }
    report.report(Message.DURATION_INVALID, method, values.mirror(), value, member, text);
    return false;
  }

  private Optional<KeyPart> keyPart(VariableElement parameter, TypeMirror parameterType, AnnotationMirror key,
                                    BatchValidator batch, ValidationReport report) {
    String name = parameter.getSimpleName().toString();
    String path = Annotations.stringValue(key, "value");
    if (path.isEmpty()) {
      if (!batch.checkWholeParameter(parameter, parameterType, key, report)) {
        return Optional.empty();
      }
      if (!isSupportedKeyType(parameterType)) {
        report.report(Message.KEY_TYPE_UNSUPPORTED, parameter, key, name, parameterType);
        return Optional.empty();
      }
      return Optional.of(new KeyPart(name, parameterType, "", List.of(), List.of()));
    }

    AnnotationValue pathValue = Annotations.value(key, "value");
    if (!ACCESSOR_PATH.matcher(path).matches()) {
      report.report(Message.KEY_PATH_SYNTAX, parameter, key, pathValue, path);
      return Optional.empty();
    }
    List<String> accessors = new ArrayList<>();
    List<TypeMirror> accessorTypes = new ArrayList<>();
    Optional<TypeMirror> pathTarget = batch.pathTarget(parameter, parameterType, key, pathValue, report);
    if (pathTarget.isEmpty()) {
      return Optional.empty();
    }
    TypeMirror current = pathTarget.get();
    for (String segment : path.split("\\.")) {
      Optional<ExecutableElement> accessor = findAccessor(current, segment);
      if (accessor.isEmpty()) {
        String getter = "get" + Character.toUpperCase(segment.charAt(0)) + segment.substring(1);
        report.report(Message.KEY_PATH_UNRESOLVED, parameter, key, pathValue,
            path, current, segment, getter, current);
        return Optional.empty();
      }
      current = ((ExecutableType) types.asMemberOf((DeclaredType) current, accessor.get())).getReturnType();
      accessors.add(accessor.get().getSimpleName().toString());
      accessorTypes.add(current);
    }
    KeyPart part = new KeyPart(name, parameterType, path, accessors, accessorTypes);
    if (!isSupportedKeyType(current)) {
      report.report(Message.KEY_TYPE_UNSUPPORTED, parameter, key, pathValue, part.displayName(), current);
      return Optional.empty();
    }
    return Optional.of(part);
  }

  /** {@code segment()} if it exists, else {@code getSegment()}: public, non-static, no parameters, not void. */
  private Optional<ExecutableElement> findAccessor(TypeMirror owner, String segment) {
    if (owner.getKind() != TypeKind.DECLARED) {
      return Optional.empty();
    }
    String getter = "get" + Character.toUpperCase(segment.charAt(0)) + segment.substring(1);
    ExecutableElement byGetter = null;
    TypeElement ownerElement = (TypeElement) ((DeclaredType) owner).asElement();
    for (ExecutableElement candidate : ElementFilter.methodsIn(elements.getAllMembers(ownerElement))) {
      if (!candidate.getParameters().isEmpty()
          || !candidate.getModifiers().contains(Modifier.PUBLIC)
          || candidate.getModifiers().contains(Modifier.STATIC)
          || candidate.getReturnType().getKind() == TypeKind.VOID) {
        continue;
      }
      if (candidate.getSimpleName().contentEquals(segment)) {
        return Optional.of(candidate);
      }
      if (candidate.getSimpleName().contentEquals(getter)) {
        byGetter = candidate;
      }
    }
    return Optional.ofNullable(byGetter);
  }

  private boolean isSupportedKeyType(TypeMirror type) {
    switch (type.getKind()) {
      case BYTE: case SHORT: case INT: case LONG:
        return true;
      case DECLARED:
        TypeElement element = (TypeElement) ((DeclaredType) type).asElement();
        if (element.getKind() == ElementKind.ENUM) {
          return true;
        }
        switch (element.getQualifiedName().toString()) {
          case "java.lang.String": case "java.util.UUID": case "java.lang.Byte": case "java.lang.Short":
          case "java.lang.Integer": case "java.lang.Long": case "java.math.BigInteger":
            return true;
          default:
            return false;
        }
      default:
        return false;
    }
  }

  /** Null if values of the type can be stored and replayed, else a short description of what it is instead. */
  private String whyNotStorable(TypeMirror type) {
    if (type.getKind() != TypeKind.DECLARED) {
      return null; // void, primitives and arrays are data
    }
    TypeElement element = (TypeElement) ((DeclaredType) type).asElement();
    if (element.getQualifiedName().contentEquals("java.lang.Object")) {
      return "Object (declare the concrete type, so that a retry gets the same type back)";
    }
    // Names, not isAssignable against each type: see TypeMirrors.supertypeNames.
    Set<String> supertypes = TypeMirrors.supertypeNames(types, type);
    for (Map.Entry<String, String> forbidden : NOT_STORABLE.entrySet()) {
      if (supertypes.contains(forbidden.getKey())) {
        return forbidden.getValue();
      }
    }
    return null;
  }

  private static Map<String, String> orderedMap(String... keysAndValues) {
    Map<String, String> map = new java.util.LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return java.util.Collections.unmodifiableMap(map);
  }
}
