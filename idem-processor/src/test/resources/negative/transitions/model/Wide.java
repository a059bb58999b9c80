package com.example.flow.model;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** Enough fields that a hash-ordered map would list them out of declaration order. */
@Entity
public class Wide {
  @Id
  private Long id;
  private String zulu;
  private String yankee;
  private String xray;
  private String whiskey;
  private String victor;
  private String uniform;
  private String tango;
  private String sierra;
  private String romeo;
  private OrderStatus quebec;
}
