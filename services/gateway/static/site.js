import{e as a}from"./chunks/chunk-VCZWA7YJ.js";a();
