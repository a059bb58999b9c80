package dev.idem.processor;

import dev.idem.processor.EntityModel.Property;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Types;

/**
 * Reads the JPA mapping of an entity class from its annotation mirrors, with the JPA defaults where a name is
 * omitted. Only the few annotations a guarded update needs are read: {@code @Entity}, {@code @Table}, {@code @Id},
 * {@code @Version}, {@code @Column}, {@code @Enumerated} and {@code @Transient}; on fields and, where a property is
 * mapped through its getter, on getters. Mapped superclasses are walked first, as JPA does.
 */
final class EntityReader {

  private final Types types;

  EntityReader(Types types) {
    this.types = types;
  }

  /** Empty if the class is not annotated {@code @Entity}. */
  Optional<EntityModel> read(TypeElement entity) {
    Optional<AnnotationMirror> entityAnnotation = jpa(entity, "Entity");
    if (entityAnnotation.isEmpty()) {
      return Optional.empty();
    }
    String name = nonEmpty(member(entityAnnotation.get(), "name")).orElse(entity.getSimpleName().toString());
    List<SqlIdentifier> table = new ArrayList<>();
    Optional<AnnotationMirror> tableAnnotation = jpa(entity, "Table");
    tableAnnotation.flatMap(t -> nonEmpty(member(t, "schema"))).map(SqlIdentifier::of).ifPresent(table::add);
    table.add(SqlIdentifier.of(tableAnnotation.flatMap(t -> nonEmpty(member(t, "name"))).orElse(name)));

    Map<String, Property> properties = new LinkedHashMap<>();
    List<Property> ids = new ArrayList<>();
    List<Property> versions = new ArrayList<>();
    for (TypeElement type : hierarchy(entity)) {
      for (VariableElement field : ElementFilter.fieldsIn(type.getEnclosedElements())) {
        if (!field.getModifiers().contains(Modifier.STATIC) && !field.getModifiers().contains(Modifier.TRANSIENT)
            && jpa(field, "Transient").isEmpty()) {
          addProperty(field.getSimpleName().toString(), field.asType(), field, properties, ids, versions);
        }
      }
      for (ExecutableElement getter : ElementFilter.methodsIn(type.getEnclosedElements())) {
        Optional<String> property = propertyName(getter);
        if (property.isPresent() && isMapped(getter)) {
          addProperty(property.get(), getter.getReturnType(), getter, properties, ids, versions);
        }
      }
    }
    return Optional.of(new EntityModel(entity, name, table,
        ids.size() == 1 ? Optional.of(ids.get(0)) : Optional.empty(),
        versions.size() == 1 ? Optional.of(versions.get(0)) : Optional.empty(),
        properties));
  }

  /**
   * Adds a property, or completes it: annotations on a getter of a field-mapped property override the field's
   * (the mapping is found wherever it is written).
   */
  private void addProperty(String name, TypeMirror type, Element element, Map<String, Property> properties,
                           List<Property> ids, List<Property> versions) {
    Property existing = properties.get(name);
    if (existing != null && !hasMapping(element)) {
      return;
    }
    String column = jpa(element, "Column").flatMap(c -> nonEmpty(member(c, "name")))
        .or(() -> existing == null ? Optional.empty() : Optional.of(existing.column().name()))
        .orElse(name);
    Optional<String> enumType = Optional.empty();
    if (isEnum(type)) {
      enumType = Optional.of(jpa(element, "Enumerated")
          .map(e -> member(e, "value").orElse("ORDINAL"))
          .orElse(existing != null && existing.enumType().isPresent() ? existing.enumType().get() : "ORDINAL"));
    }
    Property property = new Property(name, type, existing != null && jpa(element, "Column").isEmpty()
        ? existing.column() : SqlIdentifier.of(column), enumType, element);
    properties.put(name, property);
    if (jpa(element, "Id").isPresent() || jpa(element, "EmbeddedId").isPresent()) {
      ids.removeIf(id -> id.name().equals(name));
      ids.add(property);
    }
    if (jpa(element, "Version").isPresent()) {
      versions.removeIf(version -> version.name().equals(name));
      versions.add(property);
    }
  }

  private boolean isEnum(TypeMirror type) {
    return type.getKind() == TypeKind.DECLARED
        && ((DeclaredType) type).asElement().getKind() == ElementKind.ENUM;
  }

  /** Superclasses first (mapped superclasses hold ids and versions), the entity last. */
  private List<TypeElement> hierarchy(TypeElement entity) {
    List<TypeElement> result = new ArrayList<>();
    for (TypeElement type = entity; type != null; ) {
      if (type.getQualifiedName().contentEquals("java.lang.Object")) {
        break;
      }
      result.add(0, type);
      TypeMirror superclass = type.getSuperclass();
      type = superclass.getKind() == TypeKind.DECLARED ? (TypeElement) types.asElement(superclass) : null;
    }
    return result;
  }

  /** {@code getStatus()} → status, {@code isActive()} → active; empty for anything that is not a getter. */
  private static Optional<String> propertyName(ExecutableElement method) {
    if (!method.getParameters().isEmpty() || method.getModifiers().contains(Modifier.STATIC)
        || method.getReturnType().getKind() == TypeKind.VOID) {
      return Optional.empty();
    }
    String name = method.getSimpleName().toString();
    if (name.startsWith("get") && name.length() > 3) {
      return Optional.of(decapitalize(name.substring(3)));
    }
    if (name.startsWith("is") && name.length() > 2 && method.getReturnType().getKind() == TypeKind.BOOLEAN) {
      return Optional.of(decapitalize(name.substring(2)));
    }
    return Optional.empty();
  }

  /** The JavaBeans rule: {@code URL} stays {@code URL}, {@code Status} becomes {@code status}. */
  private static String decapitalize(String name) {
    if (name.length() > 1 && Character.isUpperCase(name.charAt(1)) && Character.isUpperCase(name.charAt(0))) {
      return name;
    }
    return Character.toLowerCase(name.charAt(0)) + name.substring(1);
  }

  /** A getter is a property only where the mapping is written on it (property access). */
  private static boolean isMapped(ExecutableElement getter) {
    return hasMapping(getter) && jpa(getter, "Transient").isEmpty();
  }

  private static boolean hasMapping(Element element) {
    for (String annotation : List.of("Id", "EmbeddedId", "Version", "Column", "Enumerated", "Basic")) {
      if (jpa(element, annotation).isPresent()) {
        return true;
      }
    }
    return false;
  }

  /** A {@code jakarta.persistence} annotation, or its {@code javax.persistence} predecessor. */
  static Optional<AnnotationMirror> jpa(Element element, String simpleName) {
    return Annotations.find(element, "jakarta.persistence." + simpleName)
        .or(() -> Annotations.find(element, "javax.persistence." + simpleName));
  }

  private static Optional<String> member(AnnotationMirror mirror, String member) {
    return Annotations.explicitValue(mirror, member).map(value -> value.getValue().toString());
  }

  private static Optional<String> nonEmpty(Optional<String> value) {
    return value.filter(v -> !v.isEmpty());
  }
}
