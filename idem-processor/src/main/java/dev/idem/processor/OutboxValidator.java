package dev.idem.processor;

import com.palantir.javapoet.ClassName;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.ExecutableType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/**
 * Checks an interface with {@code @OutboxEvent} methods (IDEM-130..138) and builds its {@link OutboxInterface} when
 * it is clean. The payload goes through the same {@link CodecTypeReader} check as a command's result: consumers read
 * it back from JSON, so what would not come back exactly is reported here, not found in production.
 */
final class OutboxValidator {

  private static final Pattern ACCESSOR_PATH =
      Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*");
  private static final int MAX_NAME = 255;

  private final Elements elements;
  private final Types types;
  private final CodecTypeReader codec;

  OutboxValidator(ProcessingEnvironment env) {
    this.elements = env.getElementUtils();
    this.types = env.getTypeUtils();
    this.codec = new CodecTypeReader(elements, types);
  }

  Optional<OutboxInterface> validate(TypeElement service, ValidationReport report) {
    ClassName generated = generatedName(service);
    if (!service.getTypeParameters().isEmpty()) {
      report.report(Message.OUTBOX_INTERFACE_GENERIC, service, service.getQualifiedName(), service.getSimpleName());
      return Optional.empty();
    }
    DeclaredType serviceType = (DeclaredType) service.asType();
    List<OutboxInterface.Event> events = new ArrayList<>();
    for (ExecutableElement method : ElementFilter.methodsIn(elements.getAllMembers(service))) {
      if (!method.getModifiers().contains(Modifier.ABSTRACT)
          || method.getEnclosingElement().getKind() != ElementKind.INTERFACE) {
        continue;
      }
      Optional<AnnotationMirror> event = Annotations.find(method, Annotations.OUTBOX_EVENT);
      if (event.isEmpty()) {
        report.report(Message.OUTBOX_MIXED, method, method.getSimpleName(), describeOther(method),
            service.getSimpleName());
        continue;
      }
      ExecutableType type = (ExecutableType) types.asMemberOf(serviceType, method);
      validate(method, type, event.get(), report).ifPresent(events::add);
    }
    if (!report.isClean()) {
      return Optional.empty();
    }
    return Optional.of(new OutboxInterface(service, generated, events));
  }

  static ClassName generatedName(TypeElement service) {
    ClassName name = ClassName.get(service);
    return ClassName.get(name.packageName(), String.join("_", name.simpleNames()) + "_Outbox");
  }

  private static String describeOther(ExecutableElement method) {
    for (String other : List.of(Annotations.IDEMPOTENT_COMMAND, Annotations.STATE_TRANSITION,
        Annotations.SINGLE_FLIGHT)) {
      if (Annotations.find(method, other).isPresent()) {
        return "annotated @" + other.substring(other.lastIndexOf('.') + 1);
      }
    }
    return "an abstract method without @OutboxEvent";
  }

  private Optional<OutboxInterface.Event> validate(ExecutableElement method, ExecutableType type,
                                                   AnnotationMirror annotation, ValidationReport report) {
    boolean clean = true;
    String destination = Annotations.stringValue(annotation, "destination");
    if (!isName(destination)) {
      report.report(Message.OUTBOX_DESTINATION_INVALID, method, annotation,
          Annotations.value(annotation, "destination"), destination, method.getSimpleName());
      clean = false;
    }
    List<? extends TypeMirror> parameters = type.getParameterTypes();
    boolean hasHeaders = parameters.size() == 2 && isStringMap(parameters.get(1));
    if (parameters.isEmpty() || parameters.size() > 2 || (parameters.size() == 2 && !hasHeaders)
        || !method.getTypeParameters().isEmpty()) {
      report.report(Message.OUTBOX_PARAMETERS, method, method.getSimpleName(), parameters.isEmpty()
          ? "no parameter" : parameters.toString().replace(",", ", ") + (method.getTypeParameters().isEmpty() ? ""
              : " and declares type parameters"));
      return Optional.empty();
    }
    TypeMirror returned = type.getReturnType();
    boolean returnsId = isType(returned, "java.lang.String");
    if (returned.getKind() != TypeKind.VOID && !returnsId) {
      report.report(Message.OUTBOX_RETURN_TYPE, method, method.getSimpleName(), returned);
      clean = false;
    }
    TypeMirror payload = parameters.get(0);
    CodecTypeReader.Result read = payload.getKind() == TypeKind.DECLARED || payload.getKind() == TypeKind.ARRAY
        ? codec.read(payload, "payload", CodecTypeReader.Use.WRITE_AND_READ)
        : null;
    if (read == null) {
      report.report(Message.OUTBOX_PAYLOAD_NOT_REPLAYABLE, method.getParameters().get(0), payload,
          method.getSimpleName(), "payload", "it is a " + payload + ", not an object",
          "declare a record or class for the event");
      return Optional.empty();
    }
    if (read.problem() != null) {
      CodecTypeReader.Problem problem = read.problem();
      report.report(Message.OUTBOX_PAYLOAD_NOT_REPLAYABLE, method.getParameters().get(0), payload,
          method.getSimpleName(), problem.path(), problem.reason(), problem.fix());
      return Optional.empty();
    }
    String eventType = Annotations.stringValue(annotation, "type");
    if (Annotations.explicitValue(annotation, "type").isEmpty()) {
      eventType = payload.getKind() == TypeKind.DECLARED
          ? ((DeclaredType) payload).asElement().getSimpleName().toString() : "event";
    } else if (!isName(eventType)) {
      report.report(Message.OUTBOX_TYPE_INVALID, method, annotation, Annotations.value(annotation, "type"),
          eventType, method.getSimpleName());
      clean = false;
    }
    List<String> accessors = new ArrayList<>();
    String key = Annotations.stringValue(annotation, "key");
    if (!key.isEmpty()) {
      AnnotationValue keyValue = Annotations.value(annotation, "key");
      if (!ACCESSOR_PATH.matcher(key).matches()) {
        report.report(Message.OUTBOX_KEY_PATH, method, annotation, keyValue, key, method.getSimpleName(), payload,
            "it is not an accessor path");
        return Optional.empty();
      }
      TypeMirror current = payload;
      for (String segment : key.split("\\.")) {
        Optional<ExecutableElement> accessor = findAccessor(current, segment);
        if (accessor.isEmpty()) {
          report.report(Message.OUTBOX_KEY_PATH, method, annotation, keyValue, key, method.getSimpleName(), payload,
              current + " has no public accessor " + segment + "() or get"
                  + Character.toUpperCase(segment.charAt(0)) + segment.substring(1) + "()");
          return Optional.empty();
        }
        current = ((ExecutableType) types.asMemberOf((DeclaredType) current, accessor.get())).getReturnType();
        accessors.add(accessor.get().getSimpleName().toString());
      }
      if (!isKeyType(current)) {
        report.report(Message.OUTBOX_KEY_TYPE, method, annotation, keyValue, key, method.getSimpleName(), current);
        clean = false;
      }
    }
    if (!clean) {
      return Optional.empty();
    }
    return Optional.of(new OutboxInterface.Event(method, payload, destination, eventType, accessors, hasHeaders,
        returnsId));
  }

  private static boolean isName(String name) {
    return !name.isEmpty() && name.length() <= MAX_NAME && name.strip().equals(name);
  }

  private boolean isStringMap(TypeMirror type) {
    if (!isType(type, "java.util.Map")) {
      return false;
    }
    List<? extends TypeMirror> arguments = ((DeclaredType) type).getTypeArguments();
    return arguments.size() == 2 && isType(arguments.get(0), "java.lang.String")
        && isType(arguments.get(1), "java.lang.String");
  }

  private static boolean isType(TypeMirror type, String qualifiedName) {
    return type.getKind() == TypeKind.DECLARED
        && ((TypeElement) ((DeclaredType) type).asElement()).getQualifiedName().contentEquals(qualifiedName);
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
      if (!candidate.getParameters().isEmpty() || !candidate.getModifiers().contains(Modifier.PUBLIC)
          || candidate.getModifiers().contains(Modifier.STATIC) || candidate.getReturnType().getKind() == TypeKind.VOID) {
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

  private static boolean isKeyType(TypeMirror type) {
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
}
