import{d as a}from"./chunks/chunk-UGN3VXTI.js";a();
