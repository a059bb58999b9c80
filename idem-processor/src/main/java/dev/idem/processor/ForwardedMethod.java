package dev.idem.processor;

import javax.lang.model.element.ExecutableElement;
import javax.lang.model.type.ExecutableType;

/** A method without idem annotations: the generated class forwards it to the delegate unchanged. */
record ForwardedMethod(ExecutableElement method, ExecutableType type) implements MethodModel {}
