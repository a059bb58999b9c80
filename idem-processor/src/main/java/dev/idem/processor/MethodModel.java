package dev.idem.processor;

import javax.lang.model.element.ExecutableElement;
import javax.lang.model.type.ExecutableType;

/** One method of the generated implementation. */
sealed interface MethodModel permits CommandMethod, BatchMethod, ForwardedMethod, TransitionMethod,
    SingleFlightMethod {

  /** The interface method being implemented. */
  ExecutableElement method();

  /** The method as a member of the service interface, with the interface's type arguments applied. */
  ExecutableType type();
}
