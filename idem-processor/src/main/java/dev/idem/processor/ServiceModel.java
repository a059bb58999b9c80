package dev.idem.processor;

import com.palantir.javapoet.ClassName;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.DeclaredType;

/** A validated service interface and everything its generated implementation needs; immutable. */
record ServiceModel(TypeElement type, DeclaredType declaredType, ClassName generatedName,
                    List<MethodModel> methods) {

  ServiceModel {
    methods = List.copyOf(methods);
  }

  /** Commands and plain forwarded methods call the user's implementation; generated transitions do not. */
  boolean needsDelegate() {
    return methods.stream()
        .anyMatch(method -> method instanceof CommandMethod || method instanceof BatchMethod
            || method instanceof ForwardedMethod);
  }

  /**
   * The transitions grouped by entity (qualified name, sorted), each group in declaration order: one state
   * machine per entity, and one diagram each.
   */
  Map<String, List<TransitionMethod>> transitionsByEntity() {
    Map<String, List<TransitionMethod>> result = new TreeMap<>();
    for (MethodModel method : methods) {
      if (method instanceof TransitionMethod transition) {
        result.computeIfAbsent(transition.entity().getQualifiedName().toString(), entity -> new ArrayList<>())
            .add(transition);
      }
    }
    return result;
  }
}
