package dev.idem.processor;

import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.TypeName;
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
    // Loops, not streams with lambdas: the processor is loaded cold by every compilation, which links each lambda
    // call site anew.
    for (MethodModel method : methods) {
      if (method instanceof CommandMethod || method instanceof BatchMethod || method instanceof ForwardedMethod
          || method instanceof SingleFlightMethod) {
        return true;
      }
    }
    return false;
  }

  /**
   * True when the interface mixes generated transitions with methods its delegate implements: the delegate then
   * implements {@code <Service>_Commands}, which declares only those, instead of transition methods it would never
   * be called for.
   */
  boolean splitsDelegate() {
    if (!needsDelegate()) {
      return false;
    }
    for (MethodModel method : methods) {
      if (method instanceof TransitionMethod) {
        return true;
      }
    }
    return false;
  }

  /** {@code Checkout_Commands} for {@code Checkout}, beside {@code Checkout_Idempotent}. */
  ClassName commandsName() {
    return ServiceValidator.generatedName(type, "_Commands");
  }

  /** What the generated class delegates to: the service interface, or its commands part for a mixed interface. */
  TypeName delegateTypeName() {
    return splitsDelegate() ? commandsName() : TypeName.get(declaredType);
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
