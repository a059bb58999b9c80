package dev.idem.processor;

import com.palantir.javapoet.ClassName;
import java.util.List;
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
}
