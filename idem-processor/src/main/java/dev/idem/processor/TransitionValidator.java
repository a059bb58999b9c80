package dev.idem.processor;

import dev.idem.processor.EntityModel.Property;
import dev.idem.processor.TransitionMethod.Columns;
import dev.idem.processor.TransitionMethod.Returns;
import dev.idem.processor.TransitionMethod.StateStorage;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.ExecutableType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/**
 * Checks one {@code @StateTransition} method against its entity's JPA mapping and turns it into a
 * {@link TransitionMethod} whose SQL is rendered here, at compile time. Every problem is reported on the annotation
 * value that causes it.
 */
final class TransitionValidator {

  static final String TRANSITION_RESULT = RuntimeNames.TRANSITION_RESULT.canonicalName();

  private final Elements elements;
  private final Types types;
  private final EntityReader entities;

  TransitionValidator(ProcessingEnvironment env) {
    this.elements = env.getElementUtils();
    this.types = env.getTypeUtils();
    this.entities = new EntityReader(types);
  }

  Optional<TransitionMethod> validate(TypeElement service, ExecutableElement method, ExecutableType type,
                                      AnnotationMirror transition, ValidationReport report) {
    boolean valid = true;
    if (!method.getTypeParameters().isEmpty()) {
      report.report(Message.GENERIC_METHOD, method, method.getSimpleName());
      valid = false;
    }
    Optional<Returns> returns = returns(method, type.getReturnType(), report);
    valid &= returns.isPresent();

    AnnotationValue entityValue = Annotations.value(transition, "entity");
    Optional<EntityModel> entity = entity(method, transition, entityValue, report);
    if (entity.isEmpty()) {
      checkParameters(method, type, null, report); // still report what can be told without the entity
      return Optional.empty();
    }
    EntityModel model = entity.get();
    Optional<Property> state = stateField(method, transition, model, report);
    valid &= checkParameters(method, type, model, report);
    if (state.isEmpty() || !valid) {
      return Optional.empty();
    }
    StateStorage storage = storage(state.get());
    List<String> constants = storage == StateStorage.STRING ? List.of() : enumConstants(state.get().type());

    List<String> from = new ArrayList<>();
    List<String> alsoAccept = new ArrayList<>();
    String to = (String) Annotations.value(transition, "to").getValue();
    valid &= checkStates(method, transition, "from", constants, state.get(), from, report);
    valid &= checkStates(method, transition, "to", constants, state.get(), new ArrayList<>(), report);
    valid &= checkStates(method, transition, "alsoAccept", constants, state.get(), alsoAccept, report);
    if (from.contains(to)) {
      report.report(Message.TRANSITION_TO_IN_FROM, method, transition, Annotations.value(transition, "to"), to, to);
      valid = false;
    }
    for (AnnotationValue value : list(Annotations.value(transition, "alsoAccept"))) {
      String accepted = (String) value.getValue();
      if (accepted.equals(to) || from.contains(accepted)) {
        report.report(Message.TRANSITION_ALSO_ACCEPT_OVERLAP, method, transition, value, accepted,
            accepted.equals(to) ? "the target state already" : "one of the from states");
        valid = false;
      }
    }
    if (!valid) {
      return Optional.empty();
    }

    VariableElement idParameter = parameterWith(method, Annotations.ENTITY_ID).orElseThrow();
    Optional<VariableElement> versionParameter = parameterWith(method, Annotations.EXPECTED_VERSION);
    String name = service.getSimpleName() + "." + method.getSimpleName();
    boolean log = (Boolean) Annotations.value(transition, "log").getValue();
    Columns columns = new Columns(model.table(), model.id().orElseThrow().column(), state.get().column(),
        model.version().map(Property::column));
    return Optional.of(new TransitionMethod(method, type, name, model.type(), model.name(),
        state.get().name(), storage, constants, from, to, alsoAccept, log,
        idParameter.getSimpleName().toString(), setter(idParameter.asType()),
        versionParameter.map(p -> p.getSimpleName().toString()), returns.get(),
        columns));
  }

  private Optional<Returns> returns(ExecutableElement method, TypeMirror returnType, ValidationReport report) {
    if (returnType.getKind() == TypeKind.VOID) {
      return Optional.of(Returns.VOID);
    }
    if (returnType.getKind() == TypeKind.BOOLEAN) {
      return Optional.of(Returns.BOOLEAN);
    }
    if (returnType.getKind() == TypeKind.DECLARED && ((TypeElement) types.asElement(returnType))
        .getQualifiedName().contentEquals(TRANSITION_RESULT)) {
      return Optional.of(Returns.RESULT);
    }
    report.report(Message.TRANSITION_RETURN_TYPE, method, method.getSimpleName(), returnType);
    return Optional.empty();
  }

  private Optional<EntityModel> entity(ExecutableElement method, AnnotationMirror transition,
                                       AnnotationValue entityValue, ValidationReport report) {
    TypeMirror entityType = (TypeMirror) entityValue.getValue();
    Optional<EntityModel> entity = entityType.getKind() == TypeKind.DECLARED
        ? entities.read((TypeElement) types.asElement(entityType))
        : Optional.empty();
    if (entity.isEmpty()) {
      report.report(Message.TRANSITION_NOT_AN_ENTITY, method, transition, entityValue, entityType);
      return Optional.empty();
    }
    if (entity.get().id().isEmpty()) {
      report.report(Message.TRANSITION_ENTITY_WITHOUT_ID, method, transition, entityValue,
          entity.get().type().getQualifiedName());
      return Optional.empty();
    }
    return entity;
  }

  private Optional<Property> stateField(ExecutableElement method, AnnotationMirror transition, EntityModel entity,
                                        ValidationReport report) {
    String field = Annotations.stringValue(transition, "field");
    Optional<AnnotationValue> written = Annotations.explicitValue(transition, "field");
    Property property = entity.properties().get(field);
    if (property == null) {
      String hint = Suggestions.closest(field, entity.properties().keySet())
          .map(closest -> " Did you mean \"" + closest + "\"?")
          .orElse(" Its fields are " + String.join(", ", entity.properties().keySet()) + ".");
      reportOn(report, Message.TRANSITION_FIELD_MISSING, method, transition, written,
          entity.type().getSimpleName(), field, hint);
      return Optional.empty();
    }
    if (property.enumType().isEmpty() && !isString(property.type())) {
      reportOn(report, Message.TRANSITION_FIELD_TYPE, method, transition, written,
          entity.type().getSimpleName(), field, property.type());
      return Optional.empty();
    }
    return Optional.of(property);
  }

  private static StateStorage storage(Property state) {
    if (state.enumType().isEmpty()) {
      return StateStorage.STRING;
    }
    return state.enumType().get().equals("STRING") ? StateStorage.ENUM_STRING : StateStorage.ENUM_ORDINAL;
  }

  /** Collects the states of {@code member} into {@code states}; for an enum, each must be one of its constants. */
  private boolean checkStates(ExecutableElement method, AnnotationMirror transition, String member,
                              List<String> constants, Property state, List<String> states,
                              ValidationReport report) {
    AnnotationValue annotationValue = Annotations.value(transition, member);
    List<AnnotationValue> values = annotationValue.getValue() instanceof String
        ? List.of(annotationValue) : list(annotationValue);
    boolean valid = true;
    for (AnnotationValue value : values) {
      String name = (String) value.getValue();
      if (!constants.isEmpty() && !constants.contains(name)) {
        String hint = Suggestions.closest(name, constants)
            .map(closest -> " Did you mean " + closest + "?")
            .orElse(" Use one of " + String.join(", ", constants) + ".");
        report.report(Message.TRANSITION_UNKNOWN_STATE, method, transition, value, member, name,
            ((DeclaredType) state.type()).asElement().getSimpleName(), hint);
        valid = false;
      } else if (!states.contains(name)) {
        states.add(name);
      }
    }
    return valid;
  }

  /**
   * Exactly one {@code @EntityId} whose type is the id's (boxing allowed); {@code @ExpectedVersion} only with a
   * {@code @Version} and on a long or int; no other parameters. With a null entity only the entity-independent
   * checks run.
   */
  private boolean checkParameters(ExecutableElement method, ExecutableType type, EntityModel entity,
                                  ValidationReport report) {
    boolean valid = true;
    VariableElement id = null;
    List<VariableElement> extra = new ArrayList<>();
    List<? extends TypeMirror> parameterTypes = type.getParameterTypes();
    for (int i = 0; i < method.getParameters().size(); i++) {
      VariableElement parameter = method.getParameters().get(i);
      TypeMirror parameterType = parameterTypes.get(i);
      Optional<AnnotationMirror> entityId = Annotations.find(parameter, Annotations.ENTITY_ID);
      Optional<AnnotationMirror> version = Annotations.find(parameter, Annotations.EXPECTED_VERSION);
      if (entityId.isPresent()) {
        if (id != null) {
          report.report(Message.TRANSITION_ENTITY_ID_DUPLICATE, parameter, entityId.get(), parameter.getSimpleName(),
              method.getSimpleName());
          valid = false;
          continue;
        }
        id = parameter;
        if (entity != null) {
          TypeMirror idType = entity.id().orElseThrow().type();
          if (!types.isSameType(boxed(parameterType), boxed(idType))) {
            report.report(Message.TRANSITION_ENTITY_ID_TYPE, parameter, entityId.get(), parameter.getSimpleName(),
                parameterType, entity.type().getSimpleName(), idType, idType);
            valid = false;
          }
        }
      } else if (version.isPresent()) {
        if (!isVersionType(parameterType)) {
          report.report(Message.TRANSITION_VERSION_TYPE, parameter, version.get(), parameter.getSimpleName(),
              parameterType);
          valid = false;
        } else if (entity != null && entity.version().isEmpty()) {
          report.report(Message.TRANSITION_VERSION_WITHOUT_VERSION, parameter, version.get(),
              parameter.getSimpleName(), entity.type().getSimpleName());
          valid = false;
        }
      } else {
        extra.add(parameter);
      }
    }
    if (id != null) {
      for (VariableElement parameter : extra) {
        report.report(Message.TRANSITION_EXTRA_PARAMETER, parameter, parameter.getSimpleName(),
            method.getSimpleName());
        valid = false;
      }
    } else {
      // An unannotated parameter is most likely the id itself: the one fix is to mark it, so only that is said.
      String idType = entity == null ? "Long" : entity.id().orElseThrow().type().toString();
      report.report(Message.TRANSITION_NO_ENTITY_ID, method,
          Annotations.find(method, Annotations.STATE_TRANSITION).orElseThrow(), method.getSimpleName(),
          method.getSimpleName(), simpleTypeName(idType));
      valid = false;
    }
    return valid;
  }

  private boolean isVersionType(TypeMirror type) {
    TypeMirror unboxed = unboxed(type);
    return unboxed.getKind() == TypeKind.LONG || unboxed.getKind() == TypeKind.INT;
  }

  private TypeMirror boxed(TypeMirror type) {
    return type.getKind().isPrimitive() ? types.boxedClass(types.getPrimitiveType(type.getKind())).asType() : type;
  }

  private TypeMirror unboxed(TypeMirror type) {
    try {
      return type.getKind().isPrimitive() ? type : types.unboxedType(type);
    } catch (IllegalArgumentException notABox) {
      return type;
    }
  }

  /** The JDBC setter for a parameter: typed for primitives and String, setObject for the rest (null-safe). */
  static String setter(TypeMirror type) {
    return switch (type.getKind()) {
      case LONG -> "setLong";
      case INT -> "setInt";
      case SHORT -> "setShort";
      case BYTE -> "setByte";
      case DECLARED -> type.toString().equals("java.lang.String") ? "setString" : "setObject";
      default -> "setObject";
    };
  }

  private boolean isString(TypeMirror type) {
    return types.isSameType(type, elements.getTypeElement("java.lang.String").asType());
  }

  private static List<String> enumConstants(TypeMirror enumType) {
    return ((DeclaredType) enumType).asElement().getEnclosedElements().stream()
        .filter(element -> element.getKind() == ElementKind.ENUM_CONSTANT)
        .map(Element::getSimpleName)
        .map(Object::toString)
        .collect(Collectors.toList());
  }

  private static Optional<VariableElement> parameterWith(ExecutableElement method, String annotation) {
    return method.getParameters().stream()
        .filter(parameter -> Annotations.find(parameter, annotation).isPresent())
        .map(parameter -> (VariableElement) parameter)
        .findFirst();
  }

  @SuppressWarnings("unchecked")
  private static List<AnnotationValue> list(AnnotationValue value) {
    return (List<AnnotationValue>) value.getValue();
  }

  private static void reportOn(ValidationReport report, Message message, ExecutableElement method,
                               AnnotationMirror annotation, Optional<AnnotationValue> value, Object... args) {
    if (value.isPresent()) {
      report.report(message, method, annotation, value.get(), args);
    } else {
      report.report(message, method, annotation, args);
    }
  }

  private static String simpleTypeName(String qualified) {
    return qualified.substring(qualified.lastIndexOf('.') + 1);
  }
}
