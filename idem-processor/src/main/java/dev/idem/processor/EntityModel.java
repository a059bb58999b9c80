package dev.idem.processor;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.lang.model.element.Element;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.TypeMirror;

/**
 * What the processor learnt about a JPA entity from its annotations: only what a guarded {@code UPDATE} needs.
 * Read at compile time, so that neither idem's runtime nor the application's runtime classpath needs a JPA provider.
 *
 * @param name the JPA entity name ({@code @Entity(name)}, else the simple class name)
 * @param table the table, schema-qualified where {@code @Table(schema)} says so
 * @param id the {@code @Id} property, empty if the entity has none or several
 * @param version the {@code @Version} property, if any
 * @param properties every persistent property by name, in declaration order (superclasses first)
 */
record EntityModel(TypeElement type, String name, List<SqlIdentifier> table, Optional<Property> id,
                   Optional<Property> version, Map<String, Property> properties) {

  EntityModel {
    table = List.copyOf(table);
    // Map.copyOf would order the properties by hash, differently between JVM runs; messages list them in order.
    properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
  }

  /**
   * One persistent property: a field, or a getter where the mapping annotations are on the getter.
   *
   * @param column the column, {@code @Column(name)} or else the property name (the JPA default)
   * @param enumType {@code STRING} or {@code ORDINAL} as {@code @Enumerated} says; ORDINAL, the JPA default, where
   *     an enum property has no {@code @Enumerated}; empty for other types
   */
  record Property(String name, TypeMirror type, SqlIdentifier column, Optional<String> enumType,
                  Element element) {}
}
